import Dispatch
import Glibc

/// Catching a signal with a dispatch source, in place when the call returns.
enum SignalHandler {
    /// How long to wait for libdispatch to register a signal source; it takes microseconds, and
    /// the bound only keeps a stuck dispatch manager from hanging the command.
    static let registrationLimit: DispatchTimeInterval = .seconds(5)

    /// Handles `number` with `handler` (on a dispatch queue) instead of its default action, and
    /// returns once the handler is in place.
    ///
    /// libdispatch registers a signal source (installs its own `sigaction`) asynchronously, on
    /// its manager thread, some time after `resume()`. Until then the signal keeps its
    /// disposition: with `SIG_IGN` it is lost (a `tenbin watch` sent SIGINT right after its
    /// first line went on forever, 6 runs in 40), with the default action it ends the process
    /// without closing anything. So this waits for the registration before returning, and
    /// the caller installs its handlers before doing anything another process could react to.
    static func install(_ number: Int32, _ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        let registered = DispatchSemaphore(value: 0)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler(handler: handler)
        source.setRegistrationHandler { registered.signal() }
        source.resume()
        // A source whose registration is late still works once registered; until then the signal
        // keeps its default action, which is the safer of the two for a signal asking to stop.
        _ = registered.wait(timeout: .now() + registrationLimit)
        return source
    }
}

import Glibc

/// Starting a pthread that runs a Swift closure: the one place that passes a closure through
/// `pthread_create`'s C context pointer. Used where work needs a thread of its own rather than
/// one of Dispatch's (``SerialThread``, PostgreSQL's notification listener, the server's
/// request log writer and its watch for feed clients hanging up).
package enum PosixThread {
    /// Starts a joinable thread running `body`, which it keeps (with whatever `body` captures)
    /// until `body` returns; nil when the system refuses a thread.
    package static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        return thread
    }

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}

/// Runs an operation once its input has stopped changing for a while, as type-to-search does:
/// each keystroke sends the whole query, and only the query standing when typing pauses runs.
///
/// Every `send` cancels the work of the one before it, whether that is still waiting out the
/// delay or already running (the operation sees `Task.isCancelled`, and whatever it returns is
/// dropped), so results arrive in the order inputs were sent and never for a replaced input.
/// Time comes from a `Clock`, so tests drive it in virtual time.
public final class Debouncer<Input: Sendable, Output: Sendable, C: Clock>: Sendable {
    /// What became of one input that was not replaced.
    public struct Outcome: Sendable {
        public let input: Input
        public let result: Result<Output, any Error>
    }

    private struct State {
        var task: Task<Void, Never>?
        /// Counts sends; a task delivers only while its number is still the latest.
        var generation = 0
    }

    private let clock: C
    private let delay: C.Duration
    private let operation: @Sendable (Input) async throws -> Output
    private let deliver: @Sendable (Outcome) -> Void
    private let state = Locked(State())

    /// A debouncer waiting `delay` on `clock` after the latest input before running
    /// `operation` on it. `deliver` receives each outcome; it is called holding the
    /// debouncer's lock (which is what keeps replaced results out), so it must return quickly
    /// and must not call `send` or `cancel` itself.
    public init(
        delay: C.Duration, clock: C, operation: @escaping @Sendable (Input) async throws -> Output,
        deliver: @escaping @Sendable (Outcome) -> Void
    ) {
        self.delay = delay
        self.clock = clock
        self.operation = operation
        self.deliver = deliver
    }

    deinit {
        state.withLock { $0.task?.cancel() }
    }

    /// Replaces the pending input with `input`, starting its delay over.
    public func send(_ input: Input) {
        state.withLock { state in
            state.task?.cancel()
            state.generation += 1
            let generation = state.generation
            state.task = Task { [clock, delay, operation] in
                do {
                    try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil)
                } catch {
                    return  // replaced while waiting
                }
                let result: Result<Output, any Error>
                do {
                    result = .success(try await operation(input))
                } catch {
                    result = .failure(error)
                }
                self.finish(generation, Outcome(input: input, result: result))
            }
        }
    }

    /// Drops the pending input and cancels its work; nothing more is delivered for it.
    public func cancel() {
        state.withLock { state in
            state.task?.cancel()
            state.task = nil
            state.generation += 1
        }
    }

    private func finish(_ generation: Int, _ outcome: Outcome) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.task = nil
            deliver(outcome)
        }
    }
}

/// One image being loaded, shared by every caller asking for it while it runs.
///
/// Callers join, then wait; each waiting caller can be cancelled on its own, and returns at
/// once with `CancellationError`. When the last caller has left before the load finished,
/// the load is abandoned: its task is cancelled and the pipeline forgets it.
final class ImageLoad: Sendable {
    /// A caller's place in the load.
    private enum Caller {
        /// Joined, not waiting yet.
        case joined
        /// Waiting for the result.
        case waiting(CheckedContinuation<PixelBuffer, any Error>)
        /// Cancelled before it started waiting.
        case cancelled
    }

    private struct State {
        var callers: [Int: Caller] = [:]
        var nextCaller = 0
        var result: Result<PixelBuffer, any Error>?
        var task: Task<Void, Never>?
        var abandoned = false

        /// Callers still wanting the result.
        var interested: Int {
            callers.values.count { if case .cancelled = $0 { false } else { true } }
        }
    }

    let request: ImageRequest
    private let state = Locked(State())

    init(_ request: ImageRequest) {
        self.request = request
    }

    /// Runs `work` in a task of its own, off any actor; its result goes to every caller.
    /// `finished` runs first, before any caller is resumed.
    func start(
        _ work: @escaping @Sendable () async throws -> PixelBuffer,
        finished: @escaping @Sendable (Result<PixelBuffer, any Error>) -> Void
    ) {
        let task = Task.detached {
            let result: Result<PixelBuffer, any Error>
            do {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            finished(result)
            self.complete(with: result)
        }
        state.withLock { $0.task = task }
    }

    /// Callers still wanting the result (for tests).
    var interestedCallers: Int { state.withLock { $0.interested } }

    /// Adds a caller and returns its ticket, or nil when the load was abandoned (the caller
    /// must start a new one).
    func join() -> Int? {
        state.withLock { state in
            guard !state.abandoned else { return nil }
            let ticket = state.nextCaller
            state.nextCaller += 1
            state.callers[ticket] = .joined
            return ticket
        }
    }

    /// Waits for the result as the caller holding `ticket`. `leave` runs when this caller's
    /// cancellation abandons the load.
    func wait(_ ticket: Int, abandoned leave: @escaping @Sendable () -> Void) async throws -> PixelBuffer {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PixelBuffer, any Error>) in
                let outcome: Result<PixelBuffer, any Error>? = state.withLock { state in
                    if let result = state.result {
                        state.callers[ticket] = nil
                        return result
                    }
                    if case .cancelled = state.callers[ticket] {
                        state.callers[ticket] = nil
                        return .failure(CancellationError())
                    }
                    state.callers[ticket] = .waiting(continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            if cancel(ticket) { leave() }
        }
    }

    /// Lets the caller holding `ticket` go with `CancellationError`; returns whether that
    /// abandoned the load (nobody else wanted it, and it had not finished).
    private func cancel(_ ticket: Int) -> Bool {
        let (continuation, abandon, task) = state.withLock {
            state -> (CheckedContinuation<PixelBuffer, any Error>?, Bool, Task<Void, Never>?) in
            guard state.result == nil, let caller = state.callers[ticket] else { return (nil, false, nil) }
            var continuation: CheckedContinuation<PixelBuffer, any Error>?
            switch caller {
            case .joined:
                state.callers[ticket] = .cancelled
            case .waiting(let waiting):
                state.callers[ticket] = nil
                continuation = waiting
            case .cancelled:
                return (nil, false, nil)
            }
            guard state.interested == 0 else { return (continuation, false, nil) }
            state.abandoned = true
            return (continuation, true, state.task)
        }
        continuation?.resume(throwing: CancellationError())
        if abandon { task?.cancel() }
        return abandon
    }

    /// Hands the result to every waiting caller; callers still to wait find it stored.
    private func complete(with result: Result<PixelBuffer, any Error>) {
        let waiting = state.withLock { state in
            state.result = result
            state.task = nil
            var waiting: [CheckedContinuation<PixelBuffer, any Error>] = []
            for (ticket, caller) in state.callers {
                if case .waiting(let continuation) = caller {
                    waiting.append(continuation)
                    state.callers[ticket] = nil
                }
            }
            return waiting
        }
        for continuation in waiting { continuation.resume(with: result) }
    }
}

import Glibc
import Testing

/// How long a test waits for something the code under test does by itself: generous for a
/// loaded machine and sanitizer builds. A bound that keeps a broken test from spinning for
/// ever, never a speed asserted.
let waitLimit = Duration.seconds(60)

/// Yields until `condition` holds (the tasks it waits for are already running), or with
/// `pause` sleeps that long between checks (for what another thread or process does, which
/// yielding would only spin for); when it still does not after `limit`, records an issue naming
/// `what` and returns, so a test whose awaited event never comes fails instead of spinning.
func waitUntil(
    _ what: @autoclosure () -> String, within limit: Duration = waitLimit, pause: Duration? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("waited \(limit) for \(what()), in vain", sourceLocation: sourceLocation)
            return
        }
        if let pause { try? await Task.sleep(for: pause) } else { await Task.yield() }
    }
}

/// ``waitUntil(_:within:pause:sourceLocation:_:)`` for a test that runs off Swift's cooperative pool
/// (PostgreSQL's, which block on sockets and processes): sleeps 10 ms between checks, and
/// throws after recording the issue, so the test stops where it waited.
func waitUntil(
    _ what: @autoclosure () -> String, within limit: Duration = waitLimit, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + limit
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("waited \(limit) for \(what()), in vain", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        usleep(10_000)
    }
}

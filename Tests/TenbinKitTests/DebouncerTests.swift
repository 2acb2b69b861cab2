import Testing

@testable import TenbinKit

/// Debouncer tests run in virtual time on a `VirtualClock`: nothing sleeps.
@Suite struct DebouncerTests {
    /// A debouncer whose operation records its inputs and echoes them upper-cased, with its
    /// outcomes in a stream.
    final class Harness: Sendable {
        let clock = VirtualClock()
        let calls = Locked<[String]>([])
        let outcomes: AsyncStream<Debouncer<String, String, VirtualClock>.Outcome>
        let debouncer: Debouncer<String, String, VirtualClock>

        init(operation: (@Sendable (String) async throws -> String)? = nil) {
            let (stream, continuation) = AsyncStream.makeStream(of: Debouncer<String, String, VirtualClock>.Outcome.self)
            outcomes = stream
            let calls = self.calls
            debouncer = Debouncer(
                delay: .milliseconds(500), clock: clock,
                operation: { input in
                    calls.withLock { $0.append(input) }
                    return try await operation?(input) ?? input.uppercased()
                },
                deliver: { continuation.yield($0) })
        }

        func nextOutcome() async throws -> (String, String) {
            var iterator = outcomes.makeAsyncIterator()
            let outcome = try #require(await iterator.next())
            return (outcome.input, try outcome.result.get())
        }
    }

    @Test func theOperationRunsOnlyOnceTheDelayHasPassed() async throws {
        let harness = Harness()
        harness.debouncer.send("ねこ")
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .milliseconds(499))
        #expect(harness.clock.pendingSleepers == 1)
        #expect(harness.calls.withLock { $0 }.isEmpty)
        harness.clock.advance(by: .milliseconds(1))
        let (input, output) = try await harness.nextOutcome()
        #expect(input == "ねこ" && output == "ねこ")
        #expect(harness.calls.withLock { $0 } == ["ねこ"])
    }

    @Test func typingFasterThanTheDelayRunsOnlyTheLastInput() async throws {
        let harness = Harness()
        for (count, query) in ["c", "ca", "cat"].enumerated() {
            harness.debouncer.send(query)
            await harness.clock.waitForSleepers(1)
            #expect(harness.clock.pendingSleepers == 1, "after \(count + 1) inputs one wait is pending, the older ones cancelled")
            harness.clock.advance(by: .milliseconds(300))
        }
        harness.clock.advance(by: .milliseconds(200))
        let (input, output) = try await harness.nextOutcome()
        #expect(input == "cat" && output == "CAT")
        #expect(harness.calls.withLock { $0 } == ["cat"])
    }

    @Test func aNewerInputCancelsAnOperationStillRunningAndItsResultIsDropped() async throws {
        let started = AsyncStream.makeStream(of: String.self)
        let release = Gate()
        let sawCancellation = Locked(false)
        let harness = Harness { input in
            started.continuation.yield(input)
            if input == "slow" {
                // The shared test gate returns early, throwing, when the waiting task is cancelled.
                try? await release.wait()
                sawCancellation.withLock { $0 = Task.isCancelled }
            }
            return "result for \(input)"
        }
        var startedInputs = started.stream.makeAsyncIterator()
        harness.debouncer.send("slow")
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .milliseconds(500))
        #expect(await startedInputs.next() == "slow")
        harness.debouncer.send("fast")
        release.open()
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .milliseconds(500))
        let (input, output) = try await harness.nextOutcome()
        #expect(input == "fast" && output == "result for fast")
        #expect(sawCancellation.withLock { $0 })
    }

    @Test func cancelDropsThePendingInput() async throws {
        let harness = Harness()
        harness.debouncer.send("gone")
        await harness.clock.waitForSleepers(1)
        harness.debouncer.cancel()
        await waitUntil("the cancelled sleep to end") { harness.clock.pendingSleepers == 0 }
        harness.debouncer.send("kept")
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(1))
        let (input, _) = try await harness.nextOutcome()
        #expect(input == "kept")
        #expect(harness.calls.withLock { $0 } == ["kept"])
    }

    @Test func anErrorFromTheOperationIsDelivered() async throws {
        struct Failure: Error {}
        let harness = Harness { _ in throw Failure() }
        harness.debouncer.send("x")
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .milliseconds(500))
        var iterator = harness.outcomes.makeAsyncIterator()
        let outcome = try #require(await iterator.next())
        #expect(throws: Failure.self) { try outcome.result.get() }
    }
}

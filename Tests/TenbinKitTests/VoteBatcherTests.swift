import Dispatch
import Testing

@testable import TenbinKit

// The limit is the ten minutes most suites have: Swift Testing's clock starts when it schedules a test,
// and a test's body then waits for one of the shared pool's threads (one a core), which the rest
// of a whole run holds. This 10 ms test took 145 to 476 s in whole runs under ThreadSanitizer.
/// Group commit: votes cast while a commit is under way go into the next transaction together.
@Suite(.timeLimit(.minutes(10))) struct VoteBatcherTests {
    /// A commit held at a gate: the first `commitVotes` says it has begun and waits until the
    /// test opens the gate; later ones pass.
    final class HeldCommit: Sendable {
        let begun = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        private let calls = Locked(0)

        func enter() {
            guard
                calls.withLock({ calls in
                    calls += 1
                    return calls == 1
                })
            else { return }
            begun.signal()
            gate.wait()
        }
    }

    @Test func votesCastWhileACommitIsUnderWayShareTheNextTransaction() throws {
        let store = try TemporaryStore()
        let held = HeldCommit()
        let board = Board(store.configuration(), store: MemoryStore { held.enter() }, blobs: BlobStore(root: store.path + "/blobs"))
        let posters = try board.quickPost([("hot", []), ("cold", [])])
        let answers = Locked<[Result<Poster, any Error>]>([])
        let done = DispatchGroup()
        func cast(_ id: Int64, _ side: VoteSide) throws {
            done.enter()
            try board.castVote(id: id, side: side) { result in
                answers.withLock { $0.append(result) }
                done.leave()
            }
        }
        // The first vote's commit begins and is held there.
        try cast(posters[0].id, .first)
        #expect(held.begun.wait(timeout: .now() + 60) == .success, "the first commit began")
        // 200 votes for two posters arrive meanwhile.
        for index in 0..<200 { try cast(posters[index % 2].id, index % 3 == 0 ? .second : .first) }
        #expect(board.voteStatistics.commits == 0)
        held.gate.signal()
        // Waited for on this thread: resuming an `await` would need a thread of Swift's shared
        // pool again, which the run's other tests hold.
        #expect(done.wait(timeout: .now() + 60) == .success, "every vote was answered")
        let results = answers.withLock { $0 }
        #expect(results.count == 201)
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(board.voteStatistics.votes == 201)
        #expect(board.voteStatistics.commits == 2, "the held vote alone, then the 200 behind it in one transaction")
        let hot = try board.poster(id: posters[0].id)
        let cold = try board.poster(id: posters[1].id)
        #expect(hot.good1 + hot.good2 == 101 && cold.good1 + cold.good2 == 100)
        #expect(hot.good2 == (0..<200).filter { $0 % 2 == 0 && $0 % 3 == 0 }.count)
        // Every vote of the batch was answered with the poster as its commit left it.
        let last = results.compactMap { try? $0.get() }.filter { $0.id == posters[0].id }.map(\.totalVotes)
        #expect(last.first == 1 && last.dropFirst().allSatisfy { $0 == 101 })
    }
}

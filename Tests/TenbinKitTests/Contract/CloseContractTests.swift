import Testing

@testable import TenbinKit

/// Closing a board, the same way on every backend: its live feeds end, then its store, and a
/// closed board refuses every use with one clear error instead of touching closed connections.
@Suite(.timeLimit(.minutes(10))) struct CloseContractTests {
    /// Whether `error` is the store's "closed" error.
    static func isClosed(_ error: any Error) -> Bool {
        guard let error = error as? StoreError, error.reason == .closed else { return false }
        return error.kind == .unavailable && error.description.hasSuffix("the store is closed")
    }

    @Test(arguments: BackendUnderTest.all)
    func everyUseOfAClosedBoardThrowsTheStoreIsClosed(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let poster = try board.quickPost("cats", hashtags: ["猫"])
        _ = try board.changeVersion()
        await board.close()
        #expect { try board.poster(id: poster.id) } throws: { Self.isClosed($0) }
        #expect { try board.posters() } throws: { Self.isClosed($0) }
        #expect { try board.page() } throws: { Self.isClosed($0) }
        #expect { try board.count() } throws: { Self.isClosed($0) }
        #expect { try board.search(query: "cats") } throws: { Self.isClosed($0) }
        #expect { try board.vote(id: poster.id, side: .first) } throws: { Self.isClosed($0) }
        await #expect { try await board.castVote(id: poster.id, side: .second) } throws: { Self.isClosed($0) }
        #expect { try board.edit(id: poster.id, contents: "dogs") } throws: { Self.isClosed($0) }
        #expect { try board.delete(id: poster.id) } throws: { Self.isClosed($0) }
        #expect { try board.store.integrityProblems() } throws: { Self.isClosed($0) }
        #expect { try board.changeVersion() } throws: { Self.isClosed($0) }
        var iterator = try board.observe(Feed()).makeAsyncIterator()
        await #expect(throws: FeedError.closed) { try await iterator.next() }
    }

    @Test(arguments: BackendUnderTest.all)
    func closingTwiceOrFromManyThreadsAtOnceClosesOnce(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        try board.quickPost("cats")
        // A feed is being observed, so its source's connection is open too.
        var iterator = try board.observe(Feed()).makeAsyncIterator()
        #expect(try await iterator.next() != nil)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { await board.close() } }
        }
        await board.close()
        #expect(try await iterator.next() == nil)
        #expect { try board.count() } throws: { Self.isClosed($0) }
    }

    @Test(arguments: BackendUnderTest.all)
    func aStoreClosedBeforeItWasEverUsedStillRefusesUse(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        await board.close()
        #expect { try board.count() } throws: { Self.isClosed($0) }
        #expect { try board.vote(id: 1, side: .first) } throws: { Self.isClosed($0) }
    }
}

import Testing

@testable import TenbinKit

/// Reports, hiding, the review queue, restore/hide/remove and the audit log, on every backend.
@Suite struct ModerationContractTests {
    /// A board on `backend` hiding posters at `threshold` reporters.
    static func board(_ backend: BackendUnderTest, _ store: TemporaryStore, threshold: Int = 3) throws -> Board {
        var configuration = store.configuration()
        configuration.reportThreshold = threshold
        return Board(configuration, store: try backend.make(store.path), blobs: BlobStore(storeFolder: store.path))
    }

    @Test(arguments: BackendUnderTest.all)
    func distinctReportersAtTheThresholdHideAPosterFromEveryPublicRead(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store, threshold: 2)
        let posters = try board.quickPost((0..<6).map { ("猫 \($0)", ["tag"]) })
        let target = posters[3]
        let first = try board.report(id: target.id, reason: .spam, note: "ads", reporter: "10.0.0.1")
        #expect(first == ReportOutcome(posterID: target.id, counted: 1, hidNow: false))
        #expect(throws: ModerationError.alreadyReported(target.id)) {
            try board.report(id: target.id, reason: .abuse, reporter: "10.0.0.1")
        }
        #expect(try !board.isHidden(id: target.id))
        let second = try board.report(id: target.id, reason: .abuse, reporter: "10.0.0.2")
        #expect(second.hidNow && second.counted == 2)
        #expect(try board.isHidden(id: target.id))

        // Gone for the public: by id, in pages (which stay full), in search, in both orders.
        #expect(throws: BoardError.noSuchPoster(target.id)) { try board.poster(id: target.id) }
        let visible = posters.map(\.id).filter { $0 != target.id }.reversed().map { $0 }
        #expect(try board.posters(limit: 10).map(\.id) == visible)
        #expect(try board.posters(limit: 2, offset: 2).map(\.id) == Array(visible[2..<4]))
        let firstPage = try board.page(limit: 3)
        let secondPage = try board.page(limit: 3, after: firstPage.next)
        #expect((firstPage.posters + secondPage.posters).map(\.id) == visible)
        #expect(try board.search(query: "猫", limit: 10).map(\.id) == visible)
        #expect(try board.search(query: "猫 3", limit: 10).isEmpty)
        #expect(try !board.posters(order: .popular, limit: 10).contains { $0.id == target.id })
        #expect(throws: BoardError.noSuchPoster(target.id)) { try board.report(id: target.id, reason: .other, reporter: "10.0.0.3") }

        // Seen by moderators, with its reports and the automatic hide in the log.
        let item = try board.moderationItem(id: target.id)
        #expect(item.isHidden && item.counted == 2 && item.reports.map(\.reporter) == ["10.0.0.1", "10.0.0.2"])
        #expect(item.reports[0].note == "ads" && item.reasons.map(\.reason) == [.spam, .abuse])
        #expect(try board.moderationQueue().map(\.poster.id) == [target.id])
        let log = try board.auditLog()
        #expect(log.count == 1 && log[0].actor == Board.reportsActor && log[0].action == .hide && log[0].posterID == target.id)
    }

    @Test(arguments: BackendUnderTest.all)
    func aRestoredPosterIsNotHiddenAgainByTheSameReporters(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store, threshold: 2)
        let poster = try board.quickPost("a")
        try board.report(id: poster.id, reason: .spam, reporter: "a")
        try board.report(id: poster.id, reason: .spam, reporter: "b")
        let restored = try board.restore(id: poster.id, actor: "token", reason: "fine")
        #expect(!restored.isHidden && restored.reports.isEmpty && restored.counted == 0)
        #expect(try board.poster(id: poster.id) == poster)
        #expect(try board.moderationQueue().isEmpty)
        // The same reporters may report again, but do not count; a new one alone does not hide it.
        try board.report(id: poster.id, reason: .spam, reporter: "a")
        try board.report(id: poster.id, reason: .spam, reporter: "b")
        #expect(try !board.isHidden(id: poster.id))
        let third = try board.report(id: poster.id, reason: .abuse, reporter: "c")
        #expect(third.counted == 1 && !third.hidNow)
        let fourth = try board.report(id: poster.id, reason: .abuse, reporter: "d")
        #expect(fourth.hidNow)
    }

    @Test(arguments: BackendUnderTest.all)
    func moderatorsHideRestoreAndRemoveAndEveryActionIsLogged(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store)
        let posters = try board.quickPost([("a", []), ("b", [])])
        let hidden = try board.hide(id: posters[0].id, actor: "alice", reason: "off topic")
        #expect(hidden.isHidden && hidden.hiddenSince == store.configuration().now())
        #expect(try board.posters(limit: 10).map(\.id) == [posters[1].id])
        try board.restore(id: posters[0].id, actor: "token")
        #expect(try board.posters(limit: 10).count == 2)
        try board.report(id: posters[1].id, reason: .illegal, note: "see", reporter: "x")
        let removed = try board.remove(id: posters[1].id, actor: "bob", reason: "illegal")
        #expect(removed.id == posters[1].id)
        #expect(throws: BoardError.noSuchPoster(posters[1].id)) { try board.moderationItem(id: posters[1].id) }
        #expect(try board.moderationQueue().isEmpty)
        let log = try board.auditLog()
        #expect(log.map(\.action) == [.remove, .restore, .hide])
        #expect(log.map(\.actor) == ["bob", "token", "alice"])
        #expect(log.map(\.reason) == ["illegal", "", "off topic"])
        #expect(log[0].id > log[1].id && log[1].id > log[2].id)
        #expect(try board.auditLog(before: log[0].id, limit: 1).map(\.id) == [log[1].id])
        #expect(try board.auditLog(posterID: posters[0].id).count == 2)
        // Refusals leave nothing behind.
        #expect(throws: BoardError.noSuchPoster(999)) { try board.hide(id: 999, actor: "alice") }
        #expect(throws: ModerationError.invalidActor("")) { try board.hide(id: posters[0].id, actor: "") }
        #expect(throws: ModerationError.noteTooLong(501)) {
            try board.report(id: posters[0].id, reason: .other, note: String(repeating: "x", count: 501), reporter: "y")
        }
        #expect(try board.poster(id: posters[0].id).id == posters[0].id)
        #expect(try board.auditLog().count == 3)
    }

    @Test(arguments: BackendUnderTest.all)
    func aLiveFeedSendsRemovedWhenItsPosterIsHidden(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store)
        let posters = try board.quickPost([("a", []), ("b", [])])
        let observation = try board.observe(Feed(order: .new, limit: 5))
        var updates = observation.makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first == .snapshot([posters[1], posters[0]]))
        try board.hide(id: posters[1].id, actor: "token")
        let next = try #require(try await updates.next())
        #expect(next == .changes([.removed(posters[1], oldIndex: 0)]))
        await board.close()
    }

    @Test(arguments: BackendUnderTest.all, BackendUnderTest.all)
    func aCopyCarriesReportsHiddenPostersClearedReportersAndTheAuditLog(from: BackendUnderTest, to: BackendUnderTest) throws {
        let sourceStore = try TemporaryStore()
        let targetStore = try TemporaryStore()
        let source = try Self.board(from, sourceStore, threshold: 2)
        let real = try source.post(PosterDraft(image1: .file(StoreContractTests.cat), image2: .file(StoreContractTests.dog)))
        let posters = [real] + (try source.quickPost([("b", []), ("c", [])], images: real.images))
        try source.report(id: posters[0].id, reason: .spam, note: "x", reporter: "r1")
        try source.report(id: posters[0].id, reason: .abuse, reporter: "r2")
        try source.report(id: posters[1].id, reason: .other, reporter: "r1")
        try source.restore(id: posters[1].id, actor: "token")
        try source.report(id: posters[2].id, reason: .illegal, reporter: "r3")
        try source.hide(id: posters[2].id, actor: "alice", reason: "why")
        let target = try Self.board(to, targetStore, threshold: 2)
        _ = try source.copy(to: target)
        let records = try source.store.read { try $0.moderationRecords() }
        #expect(records.hidden.count == 2 && records.reports.count == 3 && records.cleared.count == 1 && records.audit.count == 3)
        #expect(try target.store.read { try $0.moderationRecords() } == records)
        #expect(try target.posters(limit: 10).map(\.id) == [posters[1].id])
        // The log goes on above the copied entries, and the cleared reporter still does not count.
        try target.report(id: posters[1].id, reason: .spam, reporter: "r1")
        #expect(try target.report(id: posters[1].id, reason: .spam, reporter: "r4").counted == 1)
        let entry = try target.hide(id: posters[1].id, actor: "bob")
        #expect(entry.isHidden)
        #expect(try target.auditLog(limit: 1)[0].id > records.audit.last!.id)
    }

    @Test func reasonsParseByNameAndAnUnknownOneIsRefusedNamingTheChoices() throws {
        #expect(try ReportReason(parsing: "illegal") == .illegal)
        #expect(throws: ModerationError.unknownReason("rude")) { try ReportReason(parsing: "rude") }
        #expect(
            ModerationError.unknownReason("rude").description == "'rude' is not a report reason; use one of spam, abuse, illegal, other")
    }
}

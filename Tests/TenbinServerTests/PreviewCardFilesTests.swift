import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// Preview cards kept on disk beside the blobs (`FOLDER/cards/`): drawn once for every server
/// on the same store's files and through restarts, replaced when their face changes, and served
/// from memory when the folder cannot be written.
@Suite struct PreviewCardFilesTests {
    /// Another server's cards over the same store folder (a restart, or a second server on the
    /// same files): a fresh memory cache, the same disk.
    static func otherServersCards(_ server: TestServer) -> PreviewCards {
        PreviewCards(pipeline: server.board.imagePipeline(), cacheBytes: 1 << 20, storeFolder: server.folder)
    }

    /// The card files kept for posters 0–999.
    static func files(_ server: TestServer) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: server.folder + "/cards/0")) ?? []).sorted()
    }

    @Test func aCardIsKeptOnDiskAndAnotherServerOnTheSameFilesServesItWithoutDrawing() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        await server.vote(1, side: 1, times: 3)
        let first = await server.request("GET", "/p/1/card.jpg")
        #expect(first.status == 200)
        let poster = try server.board.poster(id: 1)
        let face = PreviewCard.Face(poster)
        #expect(Self.files(server) == ["1-\(face.key).jpg"])
        let other = Self.otherServersCards(server)
        let card = try await other.card(for: poster)
        #expect(card.jpeg == first.bytes)
        #expect(other.drawn.withLock { $0 } == 0, "read from disk, not drawn")
        #expect(other.files?.failures.withLock { $0 } == 0)
    }

    @Test func aNewFaceReplacesThePostersOlderFileAndLeavesOtherPostersAlone() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        await server.post(contents: "second")
        await server.vote(1, side: 1)
        _ = await server.request("GET", "/p/1/card.jpg")
        _ = await server.request("GET", "/p/2/card.jpg")
        #expect(Self.files(server).count == 2)
        await server.vote(1, side: 2)  // 50 %: a new face
        let moved = await server.request("GET", "/p/1/card.jpg")
        #expect(moved.status == 200)
        let faces = try [1, 2].map { PreviewCard.Face(try server.board.poster(id: $0)).key }
        #expect(Self.files(server) == ["1-\(faces[0]).jpg", "2-\(faces[1]).jpg"])
        #expect(server.app.previewCards.drawn.withLock { $0 } == 3)
    }

    @Test func aCardsFolderThatCannotBeWrittenStillAnswersWithTheDrawnCardAndLeavesNoFile() async throws {
        let server = try TestServer()
        await server.post()
        // A file where the folder should be: nothing can be made under it (as on a read-only
        // or full disk, whatever the test's user may override).
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: server.folder + "/cards"))
        let reply = await server.request("GET", "/p/1/card.jpg")
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "image/jpeg")
        #expect(server.app.previewCards.files?.failures.withLock { $0 } == 1)
        #expect((await server.request("GET", "/metrics").text).contains("\ntenbin_preview_card_file_failures_total 1\n"))
        #expect(try String(contentsOfFile: server.folder + "/cards", encoding: .utf8) == "not a folder")
        let again = await server.request("GET", "/p/1/card.jpg")
        #expect(again.bytes == reply.bytes)
        #expect(server.app.previewCards.drawn.withLock { $0 } == 1, "kept in memory")
    }

    @Test func aHalfWrittenFileIsNeverServedUnderACardsName() async throws {
        let server = try TestServer()
        await server.post()
        _ = await server.request("GET", "/p/1/card.jpg")
        let names = try FileManager.default.contentsOfDirectory(atPath: server.folder + "/cards/0")
        #expect(names.allSatisfy { !$0.hasPrefix(".tmp-") }, "the temporary file was renamed")
    }

    @Test func aDeletedOrRemovedPostersCardFilesGoWithIt() async throws {
        let server = try TestServer { $0.adminToken = PosterPageTests.token }
        for _ in 0..<3 { await server.post() }
        for id in 1...3 { _ = await server.request("GET", "/p/\(id)/card.jpg") }
        #expect(Self.files(server).count == 3)
        let admin = [("Authorization", "Bearer \(PosterPageTests.token)")]
        #expect(await server.request("DELETE", "/api/v1/posters/2", headers: admin).status == 200)
        #expect(Self.files(server).map { String($0.prefix(2)) } == ["1-", "3-"])
        let removed = await server.request(
            "POST", "/api/v1/admin/posters/3/remove", headers: admin + [("Content-Type", "application/json")],
            body: .bytes(Array(#"{"reason": "spam"}"#.utf8)))
        #expect(removed.status == 200)
        #expect(Self.files(server).map { String($0.prefix(2)) } == ["1-"])
    }
}

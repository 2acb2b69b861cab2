import Foundation
import TenbinKit
import TenbinSQLite
import Testing

@testable import TenbinServer

/// `/healthz` (the process answers) against `/readyz` (the board takes writes), and the check
/// `tenbin serve` makes of its blob folder before it listens.
@Suite struct ReadinessTests {
    /// Asks `/readyz` until it answers `status` with `saying` in its body (it probes at most
    /// once a second), for at most 20 s.
    static func readiness(_ server: TestServer, becomes status: Int, saying: String = "") async throws -> TestReply {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let reply = await server.request("GET", "/readyz")
            if (reply.status == status && (saying.isEmpty || reply.text.contains(saying))) || ContinuousClock.now > deadline {
                return reply
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func readyWhileTheBlobFolderTakesWritesAndNotReadyWithAReasonWhenItIsGone() async throws {
        let server = try TestServer()
        try server.board.checkBlobFolder(creating: true)
        let ready = await server.request("GET", "/readyz")
        #expect(ready.status == 200)
        #expect(ready.json["status"] as? String == "ready")
        let blobs = server.folder + "/blobs"
        try FileManager.default.moveItem(atPath: blobs, toPath: server.folder + "/moved-away")
        let gone = try await Self.readiness(server, becomes: 503)
        #expect(gone.status == 503)
        #expect(gone.errorMessage?.contains("the blob folder does not exist") == true, "\(gone.text)")
        #expect(gone.errorMessage?.contains(server.folder) == false, "no paths to clients")
        #expect(await server.request("GET", "/healthz").status == 200, "the process still answers")
        try FileManager.default.moveItem(atPath: server.folder + "/moved-away", toPath: blobs)
        #expect(try await Self.readiness(server, becomes: 200).status == 200, "ready again once it is back")
        let probes = try FileManager.default.contentsOfDirectory(atPath: blobs).filter { $0.hasPrefix(".tmp-ready") }
        #expect(probes.isEmpty, "every probe file is removed")
    }

    @Test func aServerWhoseBlobFolderTakesNoWriteRefusesToStartNamingItAndTheUser() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tenbin-ready-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let board = try Board(folder: folder, create: true)
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: folder + "/blobs"))
        var configuration = ServerConfiguration()
        configuration.listen = "127.0.0.1:0"
        #expect {
            _ = try Server(configuration, board: board)
        } throws: { error in
            let text = "\(error)"
            return text.contains(folder + "/blobs") && text.contains("uid \(geteuid())")
        }
    }

    @Test func aFreshStoresBlobFolderIsMadeAtStart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tenbin-ready-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let board = try Board(folder: folder, create: true)
        var configuration = ServerConfiguration()
        configuration.listen = "127.0.0.1:0"
        let server = try Server(configuration, board: board)
        server.stop(grace: .zero)
        #expect(FileManager.default.fileExists(atPath: folder + "/blobs"))
    }
}

import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// `POST /api/v1/posters` refused for its images, in process: a picture on the blocklist, or
/// re-encoded copies of it, is 422 `blocked`; the operator's scan (real shell scripts) refusing
/// is 422 `blocked` with its reason, failing is 503; each is counted by reason and leaves
/// nothing behind.
@Suite(.timeLimit(.minutes(5))) struct BlockedPostRoutesTests {
    typealias Part = (name: String, bytes: [UInt8], filename: String?)

    /// A scratch folder holding a scan script, removed after.
    final class Script {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tenbin-scan-\(UUID().uuidString)").path
        let command: String

        init(_ body: String) throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try (body + "\n").write(toFile: folder + "/scan", atomically: true, encoding: .utf8)
            // Run by sh, not executed itself: a file just written may still be open in a child
            // another test spawned (ETXTBSY).
            command = "/bin/sh \(folder)/scan"
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    static func metric(_ server: TestServer, _ reason: String) async -> Double? {
        MetricsTests.sample(await server.request("GET", "/metrics").text, "tenbin_posts_refused_total{reason=\"\(reason)\"}")
    }

    @Test func aBlockedPictureAndItsRecompressedCopyAreRefusedWith422Blocked() async throws {
        let server = try TestServer { $0.rateLimited = false }
        let first = await server.post()
        #expect(first.status == 201)
        let id = try #require(first.json["id"] as? Int)
        let entries = try server.board.blockImages(ofPoster: Int64(id))
        try server.board.delete(id: Int64(id))

        let again = await server.post()
        #expect(again.status == 422)
        #expect(again.errorKind == "blocked")
        #expect(again.errorMessage == "image 'image1' is blocked: it matches entry #\(entries[0].id) of the board's image blocklist")

        // The cat as another JPEG at quality 35, half its size, made with tenbin's codec.
        var codec = ImageCodec()
        codec.encoding.jpegQuality = 35
        let pixels = try codec.decode(TestServer.cat, source: "cat", maxEdge: nil)
        let smaller = Resampler.resize(pixels, width: pixels.width / 2, height: pixels.height / 2)
        let copy = try codec.encode(smaller, as: .jpeg, source: "cat").bytes
        let morning = Array(
            try #require(FileManager.default.contents(atPath: TestServer.root + "/SampleImages/02-sunrise-sunset/morning.jpg")))
        let parts: [Part] = [("image1", morning, "morning.jpg"), ("image2", copy, "copy.jpg")]
        let reply = await server.request("POST", "/api/v1/posters", body: .form(parts))
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.errorKind == "blocked")
        #expect(reply.errorMessage?.contains("'image2'") == true)
        #expect(await Self.metric(server, "blocked") == 2)
        #expect(try server.storeIsClean())
    }

    @Test func aScanThatRefusesIsA422BlockedWithItsReason() async throws {
        let script = try Script("echo 'refused: looks like spam\u{1B}[0m'; exit 1")
        let server = try TestServer(board: { $0.scanner = ImageScanner(command: script.command) }) { $0.rateLimited = false }
        let reply = await server.post()
        #expect(reply.status == 422)
        #expect(reply.errorKind == "blocked")
        #expect(reply.errorMessage == "the images were refused by the board's image scan: refused: looks like spam [0m")
        #expect(await Self.metric(server, "blocked") == 1)
        #expect(try server.storeIsClean())
    }

    @Test func aScanThatHangsOrCrashesIsA503AndStoresNothing() async throws {
        let hang = try Script("exec sleep 1000")
        let crash = try Script("kill -KILL $$")
        for (script, timeout, message) in [
            (
                hang, 1.0,
                "the images could not be scanned, so the post was not stored: the scan command ran longer than 1 s and was stopped"
            ),
            (crash, 10.0, "the images could not be scanned, so the post was not stored: the scan command was ended by signal 9"),
        ] {
            let server = try TestServer(board: { $0.scanner = ImageScanner(command: script.command, timeoutSeconds: timeout) }) {
                $0.rateLimited = false
            }
            let reply = await server.post()
            #expect(reply.status == 503)
            #expect(reply.errorKind == "unavailable")
            #expect(reply.errorMessage == message)
            #expect(reply.header("Retry-After") == "5")
            #expect(await Self.metric(server, "scan_failed") == 1)
            #expect(try server.storeIsClean())
        }
    }

    @Test func aScanThatAcceptsLetsThePostThrough() async throws {
        let script = try Script("for f in \"$@\"; do [ -s \"$f\" ] || exit 2; done; exit 0")
        let server = try TestServer(board: { $0.scanner = ImageScanner(command: script.command) }) { $0.rateLimited = false }
        #expect(await server.post().status == 201)
    }
}

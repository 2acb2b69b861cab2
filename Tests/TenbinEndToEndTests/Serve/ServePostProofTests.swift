import Foundation
import Testing

@testable import TenbinKit

extension ServeEndToEndTests {
    /// `--post-proof` on the real binary: two servers on one store take one signing key from it,
    /// and a challenge spent on one is refused on the other.
    @Suite(.timeLimit(.minutes(10))) struct ServePostProofTests {
        /// Posts the cat and the dog to `server` with `headers`.
        static func post(_ server: ServeProcess, headers: [(String, String)]) throws -> HTTPReply {
            var form = Multipart()
            try form.file("image1", path: ServeAPITests.cat)
            try form.file("image2", path: ServeAPITests.dog)
            return try server.request("POST", "/api/v1/posters", headers: [("Content-Type", form.contentType)] + headers, body: form.body)
        }

        @Test func twoServersOnOneStoreShareTheKeyAndAChallengeIsSpentOnceAcrossThem() throws {
            let first = try ServeProcess(["--post-proof", "8"])
            let second = try ServeProcess(["--post-proof", "8"], store: first.store)
            let challenge = try first.request("GET", "/api/v1/post-proof")
            #expect(challenge.status == 200 && challenge.headers["cache-control"] == "no-store", "\(challenge.text)")
            let text = try #require(challenge.json["challenge"] as? String)
            let proof = PostProof.solve(text, bits: 8)
            let missing = try Self.post(second, headers: [])
            #expect(missing.status == 428 && missing.text.contains("\"proof_required\""), "\(missing.text)")
            let posted = try Self.post(second, headers: [("Tenbin-Proof", proof)])
            #expect(posted.status == 201, "the other server checks the first's challenge with the store's key: \(posted.text)")
            let reused = try Self.post(first, headers: [("Tenbin-Proof", proof)])
            #expect(reused.status == 409 && reused.text.contains("\"proof_reused\""), "\(reused.text)")
            let bad = try Self.post(first, headers: [("Tenbin-Proof", PostProof.solve(text, bits: 8, missing: true))])
            #expect(bad.status == 403 && bad.text.contains("\"proof_invalid\""), "\(bad.text)")
            // One poster stored: the refused posts left nothing.
            #expect(try Tenbin.run(["show", "1"], store: first.store).status == 0)
            #expect(try Tenbin.run(["show", "2"], store: first.store).status == 1)
            #expect(first.stop().status == 0)
            #expect(second.stop().status == 0)
        }

        @Test func theOptionTakesZeroToThirtyBits() throws {
            let run = try Tenbin.run(["serve", "--post-proof", "31"])
            #expect(
                run.status == 64 && run.stderr.hasPrefix("Error: '--post-proof' takes a whole number from 0 to 30, not '31'"),
                "\(run.stderr)")
        }
    }
}

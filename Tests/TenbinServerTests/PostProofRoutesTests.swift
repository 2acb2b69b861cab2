import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// `--post-proof`: the challenge route, the `Tenbin-Proof` header on a post, each bad proof's
/// answer, and single use, in process.
@Suite struct PostProofRoutesTests {
    /// A server asking for `bits`, its board's clock in `clock`.
    static func server(bits: Int = 8, clock: Locked<Int64> = Locked(1_800_000_000)) throws -> TestServer {
        try TestServer(board: { $0.now = { Timestamp(secondsSince1970: clock.withLock { $0 }) } }) {
            $0.postProofBits = bits
            $0.postProofLifetime = 600
        }
    }

    /// A new challenge from the server.
    static func challenge(_ server: TestServer) async throws -> (challenge: String, bits: Int) {
        let reply = await server.request("GET", "/api/v1/post-proof")
        #expect(reply.status == 200 && reply.header("cache-control") == "no-store", "\(reply.text)")
        return (try #require(reply.json["challenge"] as? String), try #require(reply.json["bits"] as? Int))
    }

    @Test func theChallengeRouteSaysTheBitsAndExpiryAndIsAbsentWhenProofIsOff() async throws {
        let server = try Self.server(bits: 9)
        let reply = await server.request("GET", "/api/v1/post-proof")
        #expect(reply.json["bits"] as? Int == 9 && reply.json["expires"] as? String == "2027-01-15T08:10:00Z", "\(reply.text)")
        #expect((reply.json["challenge"] as? String)?.hasPrefix("1.1800000600.9.") == true)
        let off = try TestServer()
        let none = await off.request("GET", "/api/v1/post-proof")
        #expect(none.status == 404 && none.errorKind == "not_found")
        #expect(await off.post().status == 201, "a board without --post-proof takes posts without a proof")
    }

    @Test func aGoodProofPostsOnceAndIsRefusedTheSecondTime() async throws {
        let server = try Self.server()
        let (challenge, bits) = try await Self.challenge(server)
        let proof = PostProof.solve(challenge, bits: bits)
        let first = await server.post(headers: [("Tenbin-Proof", proof)])
        #expect(first.status == 201, "\(first.text)")
        let again = await server.post(headers: [("Tenbin-Proof", proof)])
        #expect(again.status == 409 && again.errorKind == "proof_reused", "\(again.text)")
        #expect(again.errorMessage == "this proof was used for a post already; get a new challenge")
        #expect(try server.board.count() == 1)
        // A new challenge posts again.
        let next = try await Self.challenge(server)
        #expect(await server.post(headers: [("Tenbin-Proof", PostProof.solve(next.challenge, bits: next.bits))]).status == 201)
    }

    @Test func everyBadProofIsRefusedWithItsOwnKindAndStatusAndStoresNothing() async throws {
        let clock = Locked<Int64>(1_800_000_000)
        let server = try Self.server(clock: clock)
        let (challenge, bits) = try await Self.challenge(server)
        let missing = await server.post()
        #expect(missing.status == 428 && missing.errorKind == "proof_required", "\(missing.text)")
        #expect(missing.errorMessage?.contains("GET /api/v1/post-proof") == true)
        let cases: [(String, String)] = [
            ("no nonce", challenge),
            ("not a challenge", "hello:1"),
            (
                "forged",
                PostProof.solve(
                    PostProof.challenge(
                        key: Array("not the key".utf8), bits: 8, now: Timestamp(secondsSince1970: 1_800_000_000), lifetime: 600), bits: 8)
            ),
            ("easier than signed", PostProof.solve(challenge.replacing(".\(bits).", with: ".1."), bits: 1)),
            ("too little work", PostProof.solve(challenge, bits: bits, missing: true)),
        ]
        for (name, proof) in cases {
            let reply = await server.post(headers: [("Tenbin-Proof", proof)])
            #expect(reply.status == 403 && reply.errorKind == "proof_invalid", "\(name): \(reply.text)")
            #expect(reply.errorMessage?.hasPrefix("the Tenbin-Proof header is not a good proof: ") == true, "\(name)")
        }
        let good = PostProof.solve(challenge, bits: bits)
        clock.withLock { $0 += 600 }
        let expired = await server.post(headers: [("Tenbin-Proof", good)])
        #expect(expired.status == 403 && expired.errorKind == "proof_expired", "\(expired.text)")
        #expect(try server.storeIsClean() && server.board.count() == 0)
        #expect(await BlockedPostRoutesTests.metric(server, "proof") == 7, "each refusal counted as a proof refusal")
        // The refusals came before the post's rate was spent: the budget of 5 is whole.
        clock.withLock { $0 -= 600 }
        #expect(await server.post(headers: [("Tenbin-Proof", good)]).status == 201)
    }

    @Test func aChallengeForFewerBitsThanTheServerNowWantsIsRefused() async throws {
        let server = try Self.server(bits: 4)
        let (challenge, _) = try await Self.challenge(server)
        // Another server on the same store, started with more bits, takes the same key.
        let stricter = try TestServer(folder: server.folder) { $0.postProofBits = 10 }
        let reply = await stricter.post(headers: [("Tenbin-Proof", PostProof.solve(challenge, bits: 4))])
        #expect(
            reply.status == 403 && reply.errorMessage?.hasSuffix("the challenge asks for 4 bits; this server wants 10") == true,
            "\(reply.text)")
    }

    @Test func twoServersOnOneStoreShareTheKeyAndAProofSpentOnOneIsRefusedOnTheOther() async throws {
        let first = try Self.server()
        let second = try TestServer(folder: first.folder) { $0.postProofBits = 8 }
        let (challenge, bits) = try await Self.challenge(first)
        let proof = PostProof.solve(challenge, bits: bits)
        #expect(await second.post(headers: [("Tenbin-Proof", proof)]).status == 201)
        let reused = await first.post(headers: [("Tenbin-Proof", proof)])
        #expect(reused.status == 409 && reused.errorKind == "proof_reused", "\(reused.text)")
    }

    @Test func thePageAsksItsScriptForProofAndSaysWithoutOneThatPostingNeedsJavaScript() async throws {
        let server = try Self.server(bits: 12)
        let page = await server.request("GET", "/", headers: [FormRoutesTests.browserAccept])
        #expect(page.text.contains(#"data-post-proof="12" data-proof-worker="/static/proof-worker.js?v="#))
        #expect(page.text.contains("<noscript><p class=\"needs-script\">Posting on this board needs JavaScript"))
        #expect(
            page.text.contains(
                #"<progress id="proof-progress" class="proof-progress" max="100" value="0" aria-labelledby="proof-status" hidden>"#))
        let japanese = await server.request("GET", "/", headers: [FormRoutesTests.browserAccept, ("Accept-Language", "ja")])
        #expect(japanese.text.contains("このボードへの投稿には JavaScript が必要です"))
        #expect(await server.request("GET", "/static/proof-worker.js").status == 200)
        let off = try TestServer()
        let plain = await off.request("GET", "/", headers: [FormRoutesTests.browserAccept])
        #expect(!plain.text.contains("data-post-proof") && !plain.text.contains("needs-script"))
        // Without script the form posts without a proof and gets a page saying why.
        let form = await server.post(headers: [FormRoutesTests.browserAccept, ("Origin", FormRoutesTests.own)])
        #expect(form.status == 428 && form.text.contains("<!doctype html>"), "\(form.text)")
    }
}

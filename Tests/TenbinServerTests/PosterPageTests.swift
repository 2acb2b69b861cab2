import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// `/p/ID`, its preview card and `/oembed`: what a shared link shows, to browsers and to the
/// scrapers of link previews (which send no `Accept` and run no script).
@Suite struct PosterPageTests {
    static let token = "poster-page-admin-token-0123456789"

    /// A solid-colour picture as PNG bytes, the fixture whose colour the card must show.
    static func solid(_ rgb: [UInt8], width: Int = 400, height: Int = 300) throws -> [UInt8] {
        let pixels = PixelBuffer(
            width: width, height: height, channels: 3, pixels: Array([[UInt8]](repeating: rgb, count: width * height).joined()))
        return try ImageCodec(encoding: EncodingOptions(jpegQuality: 95)).encode(pixels, source: "fixture").bytes
    }

    /// Posts a red (left) and blue (right) poster.
    @discardableResult
    static func postSolid(_ server: TestServer, contents: String, hashtags: [String] = []) async throws -> TestReply {
        var parts: [(name: String, bytes: [UInt8], filename: String?)] = [
            ("image1", try solid([255, 0, 0]), "red.png"), ("image2", try solid([0, 0, 255], width: 300, height: 400), "blue.png"),
            ("contents", Array(contents.utf8), nil),
        ]
        for tag in hashtags { parts.append(("hashtags", Array(tag.utf8), nil)) }
        return await server.request("POST", "/api/v1/posters", body: .form(parts))
    }

    /// The `content` of `<meta property|name="NAME" content="…">` in `page`.
    static func meta(_ name: String, in page: String) -> String? {
        for prefix in ["<meta property=\"\(name)\" content=\"", "<meta name=\"\(name)\" content=\""] {
            if let start = page.firstRange(of: prefix)?.upperBound {
                return String(page[start...].prefix { $0 != "\"" })
            }
        }
        return nil
    }

    @Test func aPosterPageShowsTheBoardsCardItsTagsAsSearchLinksAndAShareControl() async throws {
        let server = try TestServer()
        await server.post(contents: "猫と犬、どっちが好き？", hashtags: ["ねこ", "dogs"])
        await server.vote(1, side: 2, times: 3)
        let page = await server.request("GET", "/p/1", headers: [("Accept", "text/html")])
        #expect(page.status == 200)
        #expect(page.header("content-type") == "text/html; charset=utf-8")
        let html = page.text
        #expect(html.contains("<li class=\"card\" id=\"poster-1\" data-id=\"1\" data-good1=\"0\" data-good2=\"3\">"))
        #expect(html.contains("<title>猫と犬、どっちが好き？ – tenbin</title>"))
        #expect(html.contains("<a href=\"/?q=%23%E3%81%AD%E3%81%93\" dir=\"auto\">#ねこ</a>"))
        #expect(html.contains("<a href=\"/?q=%23dogs\" dir=\"auto\">#dogs</a>"))
        #expect(html.contains("<form class=\"votes\" method=\"post\" action=\"/api/v1/posters/1/votes\">"))
        #expect(html.contains("<button type=\"button\" id=\"share\""))
        #expect(html.contains("<a id=\"share-link\" class=\"share-link\" href=\"http://127.0.0.1:8080/p/1\">"))
        #expect(html.contains("<body class=\"poster-page\" data-poster=\"1\""))
        #expect(html.contains("<a href=\"/p/1\">#1</a>"), "the card's own link is the page")
        // The board's cards link here too, not to JSON.
        let board = await server.request("GET", "/")
        #expect(board.text.contains("<a href=\"/p/1\">#1</a>"))
        #expect(!board.text.contains("href=\"/api/v1/posters/1\""))
    }

    @Test func previewTagsCarryTheQuestionCountsCardAndThePublicURL() async throws {
        let server = try TestServer { $0.publicURLs = ["https://board.example"] }
        await server.post(contents: "Tea or coffee?", hashtags: ["drinks"])
        await server.vote(1, side: 1, times: 2)
        await server.vote(1, side: 2, times: 1)
        let html = await server.request("GET", "/p/1", headers: [("Host", "board.example")]).text
        #expect(Self.meta("og:title", in: html) == "Tea or coffee?")
        #expect(Self.meta("og:description", in: html) == "Left 67% (2 votes) · Right 33% (1 vote) · #drinks")
        #expect(Self.meta("og:url", in: html) == "https://board.example/p/1")
        #expect(Self.meta("og:image", in: html) == "https://board.example/p/1/card.jpg")
        #expect(Self.meta("og:image:width", in: html) == "1200")
        #expect(Self.meta("og:image:height", in: html) == "630")
        #expect(Self.meta("twitter:card", in: html) == "summary_large_image")
        #expect(Self.meta("twitter:image", in: html) == "https://board.example/p/1/card.jpg")
        #expect(html.contains("<link rel=\"canonical\" href=\"https://board.example/p/1\">"))
        #expect(
            html.contains(
                "<link rel=\"alternate\" type=\"application/json+oembed\" href=\"https://board.example/oembed?url=https%3A%2F%2Fboard.example%2Fp%2F1&amp;format=json\""
            ))
        // Also when the request came to the server's address, the public URL is the one shared.
        let local = await server.request("GET", "/p/1").text
        #expect(Self.meta("og:url", in: local) == "https://board.example/p/1")
    }

    @Test func scrapersSendingNoAcceptGetThePageWithItsTagsAndTheRequestsHost() async throws {
        let server = try TestServer()
        await server.post(contents: "")
        // TestServer sends no Accept unless told: as Facebook's and Slack's scrapers do.
        let page = await server.request("GET", "/p/1", headers: [("Host", "localhost:9000")])
        #expect(page.status == 200)
        #expect(page.header("content-type") == "text/html; charset=utf-8")
        #expect(Self.meta("og:title", in: page.text) == "Which do you prefer? – poster #1", "a poster without a question has a title")
        #expect(Self.meta("og:description", in: page.text) == "No votes yet: which do you prefer?")
        #expect(Self.meta("og:url", in: page.text) == "http://localhost:9000/p/1")
        #expect(page.text.contains("<title>Which do you prefer? – poster #1 – tenbin</title>"))
    }

    @Test func behindATrustedProxyAForwardedHostThatIsNoPlainNameNeverReachesThePage() async throws {
        let server = try TestServer { $0.trustProxy = true }
        await server.post()
        let forwarded = await server.request(
            "GET", "/p/1", headers: [("X-Forwarded-Host", "board.example:8443"), ("X-Forwarded-Proto", "https")])
        #expect(Self.meta("og:url", in: forwarded.text) == "https://board.example:8443/p/1")
        let hostile = await server.request("GET", "/p/1", headers: [("X-Forwarded-Host", "evil.example\"><script>alert(1)</script>")])
        #expect(hostile.status == 200)
        #expect(Self.meta("og:url", in: hostile.text) == "http://localhost/p/1")
        #expect(!hostile.text.contains("evil.example"))
    }

    @Test func hostileQuestionsAndHashtagsAreEscapedInTheTitleMetaTagsAndAttributes() async throws {
        let server = try TestServer()
        let hostile = "\"><script>alert(1)</script><meta x='"
        await server.post(contents: hostile, hashtags: ["\"onmouseover=alert(2)", "<b>"])
        let html = await server.request("GET", "/p/1").text
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("\"><script"))
        #expect(!html.contains("<b>"))
        #expect(!html.contains("\"onmouseover"))
        #expect(!html.contains("x='"))
        let escaped = "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;meta x=&#39;"
        #expect(html.contains("<title>\(escaped) – tenbin</title>"))
        #expect(Self.meta("og:title", in: html) == escaped)
        #expect(Self.meta("twitter:title", in: html) == escaped)
        #expect(Self.meta("og:description", in: html) == "No votes yet: which do you prefer? · #&quot;onmouseover=alert(2) #&lt;b&gt;")
        #expect(html.contains("data-title=\"\(escaped)\""))
        #expect(html.contains("<a href=\"/?q=%23%22onmouseover%3Dalert%282%29\" dir=\"auto\">#&quot;onmouseover=alert(2)</a>"))
        let oembed = await server.request("GET", "/oembed?url=http%3A%2F%2F127.0.0.1%3A8080%2Fp%2F1")
        #expect(oembed.json["title"] as? String == hostile, "JSON keeps the text exact")
    }

    @Test func aPosterNeverGivenIs404AndADeletedOneIs410AsPages() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post()
        await server.post()
        let unknown = await server.request("GET", "/p/3")
        #expect(unknown.status == 404)
        #expect(unknown.header("content-type") == "text/html; charset=utf-8")
        #expect(unknown.text.contains("<h1>Not found</h1>"))
        let deleted = await server.request("DELETE", "/api/v1/posters/1", headers: [("Authorization", "Bearer \(Self.token)")])
        #expect(deleted.status == 200)
        let gone = await server.request("GET", "/p/1")
        #expect(gone.status == 410)
        #expect(gone.header("content-type") == "text/html; charset=utf-8")
        #expect(gone.text.contains("<h1>Gone</h1>"))
        #expect(gone.text.contains("poster 1 was deleted"))
        #expect(await server.request("GET", "/p/2").status == 200)
        // A hidden poster is not found, like one never given, never gone: it may come back.
        let auth = [("Authorization", "Bearer \(Self.token)")]
        #expect(await server.request("POST", "/api/v1/admin/posters/2/hide", json: "{}", headers: auth).status == 200)
        for target in ["/p/2", "/p/2/card.jpg", "/oembed?url=http%3A%2F%2F127.0.0.1%3A8080%2Fp%2F2"] {
            #expect(await server.request("GET", target).status == 404, "\(target)")
        }
        #expect(await server.request("POST", "/api/v1/admin/posters/2/restore", json: "{}", headers: auth).status == 200)
        #expect(await server.request("GET", "/p/2").status == 200)
        #expect(await server.request("GET", "/p/1/card.jpg").status == 410)
        #expect(await server.request("GET", "/oembed?url=http%3A%2F%2F127.0.0.1%3A8080%2Fp%2F1").status == 410)
        // Not a number, another method, or a browser's navigation to nothing: pages too.
        for (method, target, status) in [("GET", "/p/abc", 404), ("GET", "/p/0", 404), ("POST", "/p/2", 405)] {
            let reply = await server.request(method, target)
            #expect(reply.status == status, "\(method) \(target)")
            #expect(reply.header("content-type") == "text/html; charset=utf-8", "\(method) \(target)")
        }
        let navigation = await server.request("GET", "/nothing/here", headers: [("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")])
        #expect(navigation.status == 404)
        #expect(navigation.header("content-type") == "text/html; charset=utf-8")
        let program = await server.request("GET", "/nothing/here")
        #expect(program.errorKind == "not_found", "a program still gets JSON")
    }

    @Test func theCardIsA1200By630JPEGWithBothPicturesTheTextAndTheBar() async throws {
        let server = try TestServer()
        try await Self.postSolid(server, contents: "赤と青、どっちが好き？")
        await server.vote(1, side: 1, times: 3)
        await server.vote(1, side: 2, times: 1)
        let card = await server.request("GET", "/p/1/card.jpg")
        #expect(card.status == 200)
        #expect(card.header("content-type") == "image/jpeg")
        #expect(card.header("cache-control") == "public, max-age=300")
        let pixels = try ImageCodec().decode(card.bytes, source: "card.jpg", maxEdge: nil)
        #expect(pixels.width == 1200 && pixels.height == 630)
        func colour(_ x: Int, _ y: Int) -> [Int] {
            let at = (y * pixels.width + x) * pixels.channels
            return (0..<3).map { Int(pixels.pixels[at + $0]) }
        }
        func near(_ found: [Int], _ wanted: [Int]) -> Bool { zip(found, wanted).allSatisfy { abs($0 - $1) <= 24 } }
        for (x, y) in [(20, 20), (300, 220), (580, 420)] { #expect(near(colour(x, y), [255, 0, 0]), "left at \(x),\(y): \(colour(x, y))") }
        for (x, y) in [(620, 20), (900, 220), (1180, 420)] {
            #expect(near(colour(x, y), [0, 0, 255]), "right at \(x),\(y): \(colour(x, y))")
        }
        // The text's band is drawn on (not one colour), and the bar splits 75 : 25.
        var shades = Set<Int>()
        for y in stride(from: 455, to: 570, by: 3) {
            for x in stride(from: 0, to: 1200, by: 3) { shades.insert(colour(x, y).reduce(0) { $0 * 256 + $1 }) }
        }
        #expect(shades.count > 20, "text region: \(shades.count) colours")
        let side1 = colour(600, 600)
        let side2 = colour(1000, 600)
        #expect(side1[0] > side1[2] && side2[2] > side2[0], "bar: \(side1) then \(side2)")
        #expect(colour(880, 600)[0] > colour(880, 600)[2] && colour(920, 600)[2] > colour(920, 600)[0], "split at 900")
    }

    @Test func japaneseTextIsDrawnWithAFontThatHasEveryCharacter() throws {
        let picture = PixelBuffer(width: 2, height: 2, channels: 3, pixels: [UInt8](repeating: 128, count: 12))
        var face = PreviewCard.Face(
            Poster(
                id: 1, contents: "猫と犬、どっちが好き？ ねこ・イヌ 東京タワー", hashtags: [], good1: 1, good2: 0,
                createdAt: Timestamp(secondsSince1970: 0), images: []))
        #expect(try PreviewCard.draw(picture, picture, face: face).unknownGlyphs == 0)
        face.text = "\u{10FFFD}"  // a private-use character no font draws
        #expect(try PreviewCard.draw(picture, picture, face: face).unknownGlyphs > 0)
    }

    @Test func theCardIsDrawnAgainOnlyWhenTheRoundedPercentagesChange() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        await server.vote(1, side: 1, times: 1)
        let first = await server.request("GET", "/p/1/card.jpg")
        let etag = try #require(first.header("etag"))
        #expect(server.app.previewCards.drawn.withLock { $0 } == 1)
        await server.vote(1, side: 1, times: 1)  // still 100 %
        let same = await server.request("GET", "/p/1/card.jpg")
        #expect(same.header("etag") == etag)
        #expect(same.bytes == first.bytes)
        #expect(server.app.previewCards.drawn.withLock { $0 } == 1, "kept, not drawn again")
        let held = await server.request("GET", "/p/1/card.jpg", headers: [("If-None-Match", etag)])
        #expect(held.status == 304)
        await server.vote(1, side: 2, times: 1)  // 67 %
        let moved = await server.request("GET", "/p/1/card.jpg", headers: [("If-None-Match", etag)])
        #expect(moved.status == 200)
        #expect(moved.header("etag") != etag)
        #expect(server.app.previewCards.drawn.withLock { $0 } == 2)
    }

    @Test func oembedDescribesAPosterPagesCard() async throws {
        let server = try TestServer()
        await server.post(contents: "cats or dogs")
        let url = "http%3A%2F%2F127.0.0.1%3A8080%2Fp%2F1"
        let reply = await server.request("GET", "/oembed?url=\(url)&format=json")
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "application/json; charset=utf-8")
        let json = reply.json
        #expect(json["version"] as? String == "1.0")
        #expect(json["type"] as? String == "photo")
        #expect(json["title"] as? String == "cats or dogs")
        #expect(json["url"] as? String == "http://127.0.0.1:8080/p/1/card.jpg")
        #expect(json["width"] as? Int == 1200 && json["height"] as? Int == 630)
        #expect(json["provider_name"] as? String == "tenbin")
        let small = await server.request("GET", "/oembed?url=\(url)&maxwidth=600").json
        #expect(small["width"] as? Int == 600 && small["height"] as? Int == 315)
        #expect(await server.request("GET", "/oembed?url=\(url)&format=xml").status == 501)
        #expect(await server.request("GET", "/oembed?url=\(url)&maxwidth=0").status == 400)
        #expect(await server.request("GET", "/oembed").status == 404)
        #expect(await server.request("GET", "/oembed?url=https%3A%2F%2Fevil.example%2Fp%2F1").status == 404, "another site's page")
        #expect(await server.request("GET", "/oembed?url=http%3A%2F%2F127.0.0.1%3A8080%2Fp%2F2").status == 404)
        #expect(await server.request("GET", "/oembed?url=http%3A%2F%2F127.0.0.1%3A8080%2Fapi%2Fv1%2Fposters%2F1").status == 404)
    }

    @Test func aFeedOfOnePosterNeedsAPosterID() async throws {
        let server = try TestServer()
        let reply = await server.request("GET", "/api/v1/feed?poster=abc")
        #expect(reply.status == 400)
        #expect(reply.errorMessage == "poster must be a poster id (a whole number from 1)")
    }
}

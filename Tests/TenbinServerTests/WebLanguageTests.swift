import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// The page in English and Japanese: the language chosen from the `tenbin_lang` cookie or
/// `Accept-Language`, the switch that sets the cookie, the read cache keeping one page per
/// language, and the one string table the Swift pages and app.js share.
@Suite struct WebLanguageTests {
    @Test func acceptLanguageChoosesTheLanguageTenbinSpeaksThatItWeighsHighest() {
        let cases: [(String?, WebLanguage)] = [
            (nil, .en), ("", .en), ("ja", .ja), ("ja-JP,ja;q=0.9,en;q=0.8", .ja), ("en-US,en;q=0.9,ja;q=0.8", .en),
            ("fr-FR, ja;q=0.3", .ja), ("fr, de", .en), ("ja;q=0, en;q=0.1", .en), ("en;q=0.5, JA;q=0.7", .ja),
            ("ja;q=0", .en), ("*", .en), ("en, ja", .en), ("ja , en", .ja),
        ]
        for (header, expected) in cases {
            #expect(WebLanguage(cookie: nil, acceptLanguage: header) == expected, "\(header ?? "nil")")
        }
    }

    @Test func theCookieWinsOverAcceptLanguageAndAnUnknownOneIsIgnored() {
        #expect(WebLanguage(cookie: "a=1; tenbin_lang=en; b=2", acceptLanguage: "ja") == .en)
        #expect(WebLanguage(cookie: "tenbin_lang=ja", acceptLanguage: "en") == .ja)
        #expect(WebLanguage(cookie: "tenbin_lang=fr", acceptLanguage: "ja") == .ja)
        #expect(WebLanguage(cookie: "xtenbin_lang=en", acceptLanguage: "ja") == .ja)
    }

    @Test func everyStringHasBothLanguagesWithTheSamePlaceholders() {
        for key in WebString.allCases {
            let (en, ja) = key.text
            #expect(!en.isEmpty && !ja.isEmpty, "\(key)")
            let holes = { (text: String) in Set(text.matches(of: #/\{\d\}/#).map { String($0.output) }) }
            #expect(holes(en) == holes(ja), "\(key)")
        }
        // The one exception to "translated": none; every entry differs but for pure symbols.
        #expect(WebString.allCases.filter { $0.text.en == $0.text.ja }.isEmpty)
    }

    @Test func thePageIsInTheRequestsLanguageWithHtmlLangAndItsStringsForTheScript() async throws {
        let server = try TestServer()
        await server.post(contents: "")
        let japanese = await server.request("GET", "/", headers: [("Accept-Language", "ja-JP,ja;q=0.9,en;q=0.8")])
        #expect(japanese.status == 200)
        #expect(japanese.text.contains("<html lang=\"ja\">"))
        for text in ["新着", "人気", "新しく投稿", "左に投票", "右に投票", "投稿 #1", "投稿へ移動", "data-lang=\"ja\""] {
            #expect(japanese.text.contains(text), "\(text)")
        }
        #expect(japanese.text.contains("&quot;voteNotCounted&quot;: &quot;投票は数えられませんでした：{0}&quot;"))
        #expect(japanese.text.contains("<a class=\"lang\" href=\"/language/en\" lang=\"en\" hreflang=\"en\">English</a>"))
        #expect(japanese.header("vary") == "Accept-Encoding, Accept-Language, Cookie")
        // The same URL in English, then in Japanese again: the read cache keeps each apart.
        let english = await server.request("GET", "/", headers: [("Accept-Language", "en-US")])
        #expect(english.text.contains("<html lang=\"en\">"))
        #expect(english.text.contains("Vote left") && !english.text.contains("左に投票"))
        #expect(english.header("etag") != japanese.header("etag"))
        let again = await server.request("GET", "/", headers: [("Cookie", "tenbin_lang=ja")])
        #expect(again.text == japanese.text)
    }

    @Test func theSwitchKeepsTheLanguageInACookieAndGoesBack() async throws {
        let server = try TestServer()
        let set = await server.request("GET", "/language/ja", headers: [("Referer", "http://127.0.0.1:8080/?q=%E7%8C%AB")])
        #expect(set.status == 303)
        #expect(set.header("location") == "/?q=%E7%8C%AB")
        #expect(set.header("set-cookie") == "tenbin_lang=ja; Path=/; Max-Age=31536000; SameSite=Lax")
        let unknown = await server.request("GET", "/language/fr", headers: [("Accept-Language", "ja")])
        #expect(unknown.status == 404)
        #expect(unknown.header("content-type") == "text/html; charset=utf-8")
        #expect(unknown.header("set-cookie") == nil)
        #expect(unknown.text.contains("<html lang=\"ja\">") && unknown.text.contains("ボードに戻る"))
    }

    @Test func aFailedFormIsAPageInTheRequestsLanguageNamingTheFieldAsTheFormDoes() async throws {
        let server = try TestServer { $0.rateLimited = false }
        let reply = await server.request(
            "POST", "/api/v1/posters",
            headers: [("Origin", FormRoutesTests.own), FormRoutesTests.browserAccept, ("Accept-Language", "ja")],
            body: .form([(name: "image2", bytes: TestServer.dog, filename: "dog.jpg")]))
        #expect(reply.status == 400)
        #expect(reply.text.contains("<html lang=\"ja\">"))
        #expect(reply.text.contains("うまくいきませんでした"))
        #expect(reply.text.contains("the form has no 左の画像"), "\(reply.text)")
        #expect(WebPage.fieldNamesShown("image1 is not an image", text: WebText(language: .en)) == "Left image is not an image")
    }

    @Test func thePageHasAnIconManifestAndTouchIconItCanServe() async throws {
        let server = try TestServer()
        let page = await server.request("GET", "/")
        for name in ["icon.svg", "manifest.webmanifest", "icon-180.png"] {
            let url = WebPage.assetURL(name)
            #expect(page.text.contains("href=\"\(url)\""), "\(name)")
            let asset = await server.request("GET", url)
            #expect(asset.status == 200, "\(name)")
        }
        #expect(page.text.contains("<meta name=\"theme-color\" content=\"#f6f5f2\" media=\"(prefers-color-scheme: light)\">"))
        let png = await server.request("GET", WebPage.assetURL("icon-180.png"))
        #expect(png.header("content-type") == "image/png")
        let header = try ImageCodec().probe(png.bytes, source: "icon")
        #expect(header.format == .png && header.width == 180 && header.height == 180)
        let manifest = await server.request("GET", WebPage.assetURL("manifest.webmanifest"))
        #expect(manifest.header("content-type") == "application/manifest+json")
        let json = try JSONSerialization.jsonObject(with: Data(manifest.bytes)) as? [String: Any]
        let icons = json?["icons"] as? [[String: Any]] ?? []
        #expect(icons.compactMap { $0["src"] as? String } == ["/static/icon.svg", "/static/icon-180.png"])
    }

    @Test func voteControlsAreNamedWithTheSideAndTheQuestionAndTheFormTakesTheServersLimit() {
        let image = StoredImage(digest: Digest(of: Array("a".utf8)), format: .jpeg, width: 640, height: 480, bytes: 1000)
        let asked = Poster(
            id: 4, contents: "Tea or coffee?", hashtags: [], good1: 2, good2: 1, createdAt: Timestamp(secondsSince1970: 0),
            images: [image, image])
        var untitled = asked
        untitled.contents = ""
        let page = WebPage.board(posters: [asked], order: .new, query: nil, next: nil)
        #expect(page.contains("<span class=\"label\">Vote left</span><span class=\"sr\"> – Tea or coffee?</span>"))
        #expect(page.contains("<span class=\"label\">Vote right</span><span class=\"sr\"> – Tea or coffee?</span>"))
        #expect(page.contains("<a class=\"skip\" href=\"#board\">Skip to the posters</a>"))
        #expect(page.contains("<p id=\"announcer\" class=\"sr\" aria-live=\"polite\"></p>"))
        #expect(page.contains("data-max-question=\"\(PosterTextLimits.maximumContentsBytes)\""))
        let question = page.firstRange(of: "<textarea id=\"contents\"").map { String(page[$0.lowerBound...].prefix { $0 != ">" }) } ?? ""
        #expect(!question.isEmpty && !question.contains("maxlength"), "the limit is in bytes, which maxlength cannot count")
        let nameless = WebPage.board(posters: [untitled], order: .new, query: nil, next: nil, text: WebText(language: .ja))
        #expect(nameless.contains("<p class=\"question sr\" id=\"question-4\">投稿 #4</p>"))
        #expect(nameless.contains("<span class=\"sr\"> – 投稿 #4</span>"))
        #expect(nameless.contains("aria-label=\"左の画像を大きく表示\""))
    }
}

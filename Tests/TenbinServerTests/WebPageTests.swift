import TenbinKit
import Testing

@testable import TenbinServer

@Suite struct WebPageTests {
    private func poster(id: Int64 = 7, contents: String = "猫と犬、どっちが好き？", hashtags: [String] = ["猫", "犬"], good1: Int = 3, good2: Int = 1)
        -> Poster
    {
        let image = StoredImage(digest: Digest(of: Array("a".utf8)), format: .jpeg, width: 640, height: 480, bytes: 1000)
        return Poster(
            id: id, contents: contents, hashtags: hashtags, good1: good1, good2: good2,
            createdAt: Timestamp(secondsSince1970: 1_764_450_000), images: [image, image])
    }

    @Test func controlsAndBidirectionalOverridesInStoreTextAreShownVisibly() {
        let page = WebPage.board(
            posters: [poster(contents: "a\u{202E}b\u{1B}[2Jc\nd", hashtags: ["x\u{7}"])], order: .new, query: nil, next: nil)
        #expect(page.contains(">a\u{FFFD}b\u{241B}[2Jc\nd</p>"))
        #expect(page.contains("#x\u{2407}</a>"))
        #expect(!page.contains("\u{202E}"))
        #expect(!page.contains("\u{1B}"))
    }

    @Test func theBoardShowsEachPosterWithItsImagesQuestionTagsAndCounts() {
        let page = WebPage.board(posters: [poster()], order: .new, query: nil, next: "abc")
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.contains("<li class=\"card\" id=\"poster-7\" data-id=\"7\" data-good1=\"3\" data-good2=\"1\">"))
        #expect(page.contains("猫と犬、どっちが好き？"))
        #expect(page.contains("<a href=\"/?q=%23%E7%8C%AB\" dir=\"auto\">#猫</a>"))
        #expect(page.contains("<span class=\"fill p75\">"))
        #expect(page.contains("<span class=\"count\">3</span> <span class=\"pct\">75%</span>"))
        #expect(page.contains("<span class=\"count\">1</span> <span class=\"pct\">25%</span>"))
        #expect(page.contains("alt=\"Left image: 猫と犬、どっちが好き？\""))
        #expect(page.contains("srcset=\"/thumbs/"))
        #expect(page.contains("?w=160 160w, "))
        #expect(page.contains("loading=\"lazy\""))
        #expect(page.contains("<a id=\"more\" class=\"more\" href=\"/?sort=new&amp;cursor=abc\">"))
    }

    @Test func userTextIsEscapedEverywhereThePageShowsIt() {
        let hostile = "\"><img src=x onerror=alert(1)>"
        let page = WebPage.board(posters: [poster(contents: hostile, hashtags: [hostile])], order: .popular, query: hostile, next: hostile)
        #expect(!page.contains("<img src=x"))
        #expect(!page.contains(hostile))
        #expect(page.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
    }

    @Test func thePageHasNoInlineScriptOrStyleForTheContentSecurityPolicy() {
        let page = WebPage.board(posters: [poster(), poster(id: 8, good1: 0, good2: 0)], order: .new, query: "猫", next: nil)
        #expect(!page.contains("style="))
        #expect(!page.contains("<style"))
        #expect(page.firstMatch(of: #/ on[a-z]+=/#) == nil, "no inline event handler")
        for match in page.ranges(of: "<script") {
            let source = page[match.upperBound...]
            #expect(source.hasPrefix(" src=\"/static/app.js?v=") || source.hasPrefix(" src=\"/static/report.js?v="))
        }
        #expect(page.contains("<a id=\"more\" class=\"more\" href=\"#\" hidden>"))
    }

    @Test func aPosterWithoutVotesShowsAnEvenEmptyBar() {
        let page = WebPage.board(posters: [poster(good1: 0, good2: 0)], order: .new, query: nil, next: nil)
        #expect(page.contains("<div class=\"meter none\" aria-hidden=\"true\"><span class=\"fill p50\"></span></div>"))
        // Not "0 –": the counts are left out until there is a vote, and the card says so.
        #expect(page.contains("<span class=\"count\"></span> <span class=\"pct\"></span>"))
        #expect(!page.contains("–</span>"))
        #expect(page.contains("<span class=\"tally\"> · No votes yet</span>"))
    }

    @Test func sharesAreWholePercentagesThatAddUpToOneHundred() {
        #expect(VoteShare(good1: 1, good2: 2).percent1 == 33)
        #expect(VoteShare(good1: 2, good2: 1).percent1 == 67)
        #expect(VoteShare(good1: 1, good2: 1).percent2 == 50)
        #expect(VoteShare(good1: 0, good2: 5).percent1 == 0)
    }

    @Test func theAssetsAreServedByNameWithTheirTypes() throws {
        let script = try #require(WebPage.asset(named: "app.js"))
        #expect(script.contentType == "text/javascript; charset=utf-8")
        #expect(String(decoding: script.body, as: UTF8.self).contains("EventSource"))
        let style = try #require(WebPage.asset(named: "app.css"))
        #expect(style.contentType == "text/css; charset=utf-8")
        #expect(WebPage.asset(named: "icon.svg")?.contentType == "image/svg+xml")
        #expect(WebPage.asset(named: "../Package.swift") == nil)
        #expect(WebPage.asset(named: "") == nil)
    }

    @Test func theStyleSheetHasAFillWidthForEveryPercentageACardCanShow() throws {
        let style = String(decoding: try #require(WebPage.asset(named: "app.css")).body, as: UTF8.self)
        let missing = (0...100).filter { !style.contains("\n.p\($0) { width: \($0)%; }\n") }
        #expect(missing.isEmpty, "app.css has no fill width class for \(missing)")
    }

    @Test func userTextTakesItsOwnDirectionIsolatedFromTheSentencesAroundIt() {
        let hebrew = "חתול או כלב"
        let page = WebPage.board(posters: [poster(contents: hebrew, hashtags: ["כלב"])], order: .new, query: "<חתול>", next: nil)
        #expect(page.contains("<p class=\"question\" id=\"question-7\" dir=\"auto\">\(hebrew)</p>"))
        #expect(page.contains("dir=\"auto\">#כלב</a>"))
        #expect(page.contains("Posters matching “<bdi>&lt;חתול&gt;</bdi>”"))
        #expect(WebPage.statusHTML(count: 0, query: "a&b") == "Nothing matches “<bdi>a&amp;b</bdi>”.")
        let script = String(decoding: WebPage.asset(named: "app.js")?.body ?? [], as: UTF8.self)
        #expect(script.contains("question.dir = \"auto\""))
        #expect(script.contains("el(\"bdi\", \"\", state.query)"))
        let style = String(decoding: WebPage.asset(named: "app.css")?.body ?? [], as: UTF8.self)
        #expect(style.contains("unicode-bidi: isolate"))
    }

    @Test func aLostAnswerIsNotCalledALostVoteOrALostPoster() {
        // On a phone's flaky link the request may reach the server and the answer be lost: the
        // vote is then counted (the live feed shows it) and the poster stored. The script said
        // "was not counted" and "was not sent", and a person posted the same poster again.
        let script = String(decoding: WebPage.asset(named: "app.js")?.body ?? [], as: UTF8.self)
        #expect(script.contains("say(t(\"voteUnreachable\"))"))
        #expect(script.contains("fieldError(\"form\", t(\"postUnreachable\"))"))
        #expect(WebString.voteUnreachable.text.en == "The server could not be reached; your vote may not have counted.")
        #expect(
            WebString.postUnreachable.text.en
                == "The server could not be reached; the poster may have been stored: look for it on the board before posting again.")
    }
}

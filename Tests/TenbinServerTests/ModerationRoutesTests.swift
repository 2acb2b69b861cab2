import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// Reports and the admin moderation routes, in process.
@Suite struct ModerationRoutesTests {
    static let token = AdminRoutesTests.token
    static let auth = AdminRoutesTests.auth

    /// Reports `id` from `peer`.
    static func report(_ server: TestServer, _ id: Int64, _ body: String, peer: String, headers: [(String, String)] = []) async
        -> TestReply
    {
        await server.request("POST", "/api/v1/posters/\(id)/reports", json: body, headers: headers, peer: peer)
    }

    @Test func threeDistinctAddressesHideAPosterWhichThePublicNoLongerSeesButModeratorsDo() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post(contents: "keep")
        await server.post(contents: "spam")
        let first = await Self.report(server, 2, #"{"reason": "spam", "note": "ads"}"#, peer: "10.0.0.1")
        #expect(first.status == 202, "\(first.text)")
        #expect(first.json["poster"] as? Int == 2 && first.json["reason"] as? String == "spam")
        let again = await Self.report(server, 2, #"{"reason": "abuse"}"#, peer: "10.0.0.1")
        #expect(again.status == 409 && again.errorKind == "conflict")
        #expect(again.errorMessage == "poster #2: you have reported this poster already")
        #expect(await Self.report(server, 2, #"{"reason": "spam"}"#, peer: "10.0.0.2").status == 202)
        #expect(await server.request("GET", "/api/v1/posters/2").status == 200)
        #expect(await Self.report(server, 2, #"{"reason": "illegal"}"#, peer: "10.0.0.3").status == 202)

        #expect(await server.request("GET", "/api/v1/posters/2").status == 404)
        let page = await server.request("GET", "/api/v1/posters")
        #expect((page.json["posters"] as? [[String: Any]])?.map { $0["id"] as? Int } == [1])
        let search = await server.request("GET", "/api/v1/search?q=spam")
        #expect((search.json["posters"] as? [[String: Any]])?.isEmpty == true)
        #expect(await Self.report(server, 2, #"{"reason": "spam"}"#, peer: "10.0.0.4").status == 404)

        let queue = await server.request("GET", "/api/v1/admin/queue", headers: Self.auth)
        #expect(queue.status == 200, "\(queue.text)")
        let items = try #require(queue.json["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect((items[0]["poster"] as? [String: Any])?["id"] as? Int == 2)
        #expect(items[0]["hidden"] as? Bool == true && items[0]["counted"] as? Int == 3)
        #expect(items[0]["reasons"] as? [String: Int] == ["spam": 2, "illegal": 1])
        #expect(!queue.text.contains("10.0.0."), "reporters' addresses are never shown")
        let item = await server.request("GET", "/api/v1/admin/posters/2", headers: Self.auth)
        #expect(item.status == 200 && (item.json["reports"] as? [[String: Any]])?.first?["note"] as? String == "ads")
        let log = await server.request("GET", "/api/v1/admin/log", headers: Self.auth)
        let entries = try #require(log.json["entries"] as? [[String: Any]])
        #expect(entries.count == 1 && entries[0]["actor"] as? String == "reports" && entries[0]["action"] as? String == "hide")
    }

    @Test func aPublicVoteOnAHiddenPosterAnswers404AsForAMissingOneAndCountsNothing() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post()
        #expect(await server.vote(1, side: 1).status == 200)
        #expect(await server.request("POST", "/api/v1/admin/posters/1/hide", headers: Self.auth).status == 200)
        let missing = await server.vote(42, side: 1)
        for side in [1, 2] {
            let refused = await server.vote(1, side: side, times: 3)
            #expect(refused.status == 404 && refused.errorKind == "not_found", "\(refused.text)")
            #expect(refused.errorMessage == missing.errorMessage?.replacing("42", with: "1"))
        }
        // The page's plain form vote is refused the same way.
        let form = await server.request(
            "POST", "/api/v1/posters/1/votes", urlencoded: [("side", "2")],
            headers: [FormRoutesTests.browserAccept, ("Origin", FormRoutesTests.own)])
        #expect(form.status == 404, "\(form.text)")
        // Moderators see the counts it had when hidden.
        let item = await server.request("GET", "/api/v1/admin/posters/1", headers: Self.auth)
        let poster = try #require(item.json["poster"] as? [String: Any])
        #expect(poster["good1"] as? Int == 1 && poster["good2"] as? Int == 0, "\(item.text)")
        #expect(await server.request("POST", "/api/v1/admin/posters/1/restore", headers: Self.auth).status == 200)
        #expect(await server.vote(1, side: 2).status == 200)
    }

    @Test func moderatorsRestoreHideAndRemoveWithTheTokenAndEachIsLoggedAsTheToken() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post()
        await server.post()
        let hidden = await server.request("POST", "/api/v1/admin/posters/1/hide", json: #"{"reason": "off topic"}"#, headers: Self.auth)
        #expect(hidden.status == 200, "\(hidden.text)")
        #expect(hidden.json["hidden"] as? Bool == true)
        #expect(await server.request("GET", "/api/v1/posters/1").status == 404)
        let restored = await server.request("POST", "/api/v1/admin/posters/1/restore", headers: Self.auth)
        #expect(restored.status == 200 && restored.json["hidden"] as? Bool == false)
        #expect(await server.request("GET", "/api/v1/posters/1").status == 200)
        #expect(await server.request("GET", "/api/v1/posters/2").status == 200)
        let removed = await server.request("POST", "/api/v1/admin/posters/2/remove", json: #"{"reason": "dup"}"#, headers: Self.auth)
        #expect(removed.status == 200 && removed.json["id"] as? Int == 2)
        #expect(await server.request("GET", "/api/v1/posters/2").status == 404)
        #expect(await server.request("POST", "/api/v1/admin/posters/2/hide", headers: Self.auth).status == 404)
        let log = await server.request("GET", "/api/v1/admin/log?limit=2", headers: Self.auth)
        let entries = try #require(log.json["entries"] as? [[String: Any]])
        #expect(entries.map { $0["action"] as? String } == ["remove", "restore"])
        #expect(entries.map { $0["actor"] as? String } == ["token", "token"])
        #expect(entries[0]["reason"] as? String == "dup")
        let older = await server.request("GET", "/api/v1/admin/log?poster=1&before=\(entries[1]["id"] as? Int ?? 0)", headers: Self.auth)
        #expect((older.json["entries"] as? [[String: Any]])?.map { $0["action"] as? String } == ["hide"])
    }

    @Test func theAdminRoutesNeedTheTokenAndTheirWritesTheSameOrigin() async throws {
        let off = try TestServer()
        #expect(await off.request("GET", "/api/v1/admin/queue", headers: Self.auth).status == 403)
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post()
        for path in ["/api/v1/admin/queue", "/api/v1/admin/posters/1", "/api/v1/admin/log"] {
            let none = await server.request("GET", path)
            #expect(none.status == 401 && none.errorKind == "unauthorized", "\(path)")
            #expect(await server.request("GET", path, headers: [("Authorization", "Bearer wrong")]).status == 401, "\(path)")
        }
        #expect(await server.request("POST", "/api/v1/admin/posters/1/hide").status == 401)
        let crossSite = await server.request(
            "POST", "/api/v1/admin/posters/1/hide", headers: Self.auth + [("Origin", "http://evil.example")])
        #expect(crossSite.status == 403)
        #expect(await server.request("GET", "/api/v1/posters/1").status == 200)
        #expect((await server.request("GET", "/api/v1/admin/log", headers: Self.auth).json["entries"] as? [Any])?.isEmpty == true)
    }

    @Test func badReportsAndActionsAreRefusedNamingTheProblem() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post()
        let cases: [(String, Int, String)] = [
            (#"{"reason": "rude"}"#, 422, "'rude' is not a report reason; use one of spam, abuse, illegal, other"),
            (#"{}"#, 422, "reason is required: one of spam, abuse, illegal, other"),
            (#"{"reason": "spam", "note": 5}"#, 422, "note must be a string"),
            (#"{"reason": "spam", "extra": 1}"#, 422, "unknown field \"extra\"; a report has reason and note"),
            (
                "{\"reason\": \"spam\", \"note\": \"\(String(repeating: "x", count: 501))\"}", 422,
                "a report's note may have at most 500 characters; this one has 501"
            ),
            ("not json", 400, "the body is not valid JSON: unexpected word where a value was expected at column 1"),
        ]
        // Each from an address of its own: a refused report still spends its sender's budget.
        for (index, (body, status, message)) in cases.enumerated() {
            let reply = await Self.report(server, 1, body, peer: "10.0.1.\(index)")
            #expect(reply.status == status, "\(body)")
            #expect(reply.errorMessage == message, "\(body): \(reply.text)")
        }
        let unknown = await Self.report(server, 99, #"{"reason": "spam"}"#, peer: "10.0.2.1")
        #expect(unknown.status == 404 && unknown.errorMessage == "poster #99: no such poster")
        let badAction = await server.request("POST", "/api/v1/admin/posters/1/hide", json: #"{"blockImages": true}"#, headers: Self.auth)
        #expect(badAction.status == 422 && badAction.errorMessage == "unknown field \"blockImages\"; this action takes reason")
        let badLog = await server.request("GET", "/api/v1/admin/log?before=x", headers: Self.auth)
        #expect(badLog.status == 400 && badLog.errorMessage == "before must be an entry id")
        // Nothing was recorded by any of them.
        let item = await server.request("GET", "/api/v1/admin/posters/1", headers: Self.auth)
        #expect((item.json["reports"] as? [Any])?.isEmpty == true)
    }

    @Test func reportsAreRateLimitedPerAddressAndBehindATrustedProxyTheForwardedAddressReports() async throws {
        let server = try TestServer {
            $0.adminToken = Self.token
            $0.postRate = Rate(perSecond: 0.000_001, burst: 2)
            $0.trustProxy = true
        }
        for _ in 0..<4 { await server.post(headers: Self.auth) }
        let proxied = [("X-Forwarded-For", "203.0.113.7")]
        #expect(await Self.report(server, 1, #"{"reason": "spam"}"#, peer: "127.0.0.1", headers: proxied).status == 202)
        #expect(await Self.report(server, 2, #"{"reason": "spam"}"#, peer: "127.0.0.1", headers: proxied).status == 202)
        let limited = await Self.report(server, 3, #"{"reason": "spam"}"#, peer: "127.0.0.1", headers: proxied)
        #expect(limited.status == 429 && limited.header("retry-after") != nil)
        #expect(limited.errorMessage?.hasPrefix("too many reports from this address") == true)
        // Another forwarded address has a budget of its own, and it is the reporter.
        let other = [("X-Forwarded-For", "203.0.113.8")]
        #expect(await Self.report(server, 1, #"{"reason": "spam"}"#, peer: "127.0.0.1", headers: other).status == 202)
        #expect(await Self.report(server, 1, #"{"reason": "spam"}"#, peer: "127.0.0.1", headers: proxied).status == 429)
        let item = await server.request("GET", "/api/v1/admin/posters/1", headers: Self.auth)
        #expect(item.json["counted"] as? Int == 2)
    }
}

/// The page's report menu: on every card, and sent as a form without JavaScript.
@Suite struct ReportMenuTests {
    @Test func everyCardHasASmallReportMenuAndThePageLoadsItsScriptAndStyle() async throws {
        let server = try TestServer()
        await server.post()
        let page = await server.request("GET", "/")
        #expect(page.text.contains(#"<details class="report"><summary aria-label="Report poster 1">Report</summary>"#))
        #expect(page.text.contains(#"<form class="report-form" method="post" action="/api/v1/posters/1/reports">"#))
        #expect(page.text.contains(#"<option value="illegal">Illegal</option>"#))
        for name in ["report.js", "report.css"] {
            #expect(page.text.contains("/static/\(name)?v="), "\(name)")
            #expect(await server.request("GET", "/static/\(name)").status == 200, "\(name)")
        }
    }

    @Test func theMenuSpeaksThePagesLanguageByCookieOrAcceptLanguage() async throws {
        let server = try TestServer()
        await server.post()
        let japanese = #"<details class="report"><summary aria-label="投稿 1 を通報">通報</summary>"#
        for headers in [[("Accept-Language", "ja,en;q=0.5")], [("Cookie", "tenbin_lang=ja"), ("Accept-Language", "en")]] {
            for path in ["/", "/p/1"] {
                let page = await server.request("GET", path, headers: headers + [FormRoutesTests.browserAccept])
                #expect(page.text.contains(japanese), "\(path) \(headers)")
                #expect(
                    page.text.contains(#"<option value="abuse">嫌がらせ・暴言</option>"#)
                        && page.text.contains("<button type=\"submit\">通報する</button>"))
                #expect(!page.text.contains(">Report<") && !page.text.contains("Send report"))
            }
        }
        let english = await server.request("GET", "/", headers: [("Cookie", "tenbin_lang=en"), ("Accept-Language", "ja")])
        #expect(english.text.contains(#"<summary aria-label="Report poster 1">Report</summary>"#))
        // report.js reads the same table from the page: every string it uses is in it.
        let script = try #require(WebPage.asset(named: "report.js"))
        let used = Set(String(decoding: script.body, as: UTF8.self).matches(of: /t\("([a-zA-Z]+)"/).map { String($0.output.1) })
        #expect(used.count >= 9)
        for key in used { #expect(WebString(rawValue: key) != nil, "report.js uses \(key), which the table lacks") }
    }

    @Test func theMenuSentWithoutScriptReportsAndGoesBackToTheCardAndABadOneIsAPage() async throws {
        let server = try TestServer { $0.adminToken = ModerationRoutesTests.token }
        await server.post()
        let headers = [FormRoutesTests.browserAccept, ("Origin", FormRoutesTests.own), ("Referer", FormRoutesTests.own + "/?q=cats")]
        let sent = await server.request(
            "POST", "/api/v1/posters/1/reports", urlencoded: [("reason", "abuse"), ("note", "rude words")], headers: headers)
        #expect(sent.status == 303, "\(sent.text)")
        #expect(sent.header("location") == "/?q=cats#poster-1")
        let item = await server.request("GET", "/api/v1/admin/posters/1", headers: ModerationRoutesTests.auth)
        #expect((item.json["reports"] as? [[String: Any]])?.first?["note"] as? String == "rude words")
        let bad = await server.request(
            "POST", "/api/v1/posters/1/reports", urlencoded: [("reason", "meh")], headers: headers, peer: "10.0.0.5")
        #expect(bad.status == 422 && bad.header("content-type") == "text/html; charset=utf-8")
        #expect(bad.text.contains("&#39;meh&#39; is not a report reason"), "\(bad.text)")
        let crossSite = await server.request(
            "POST", "/api/v1/posters/1/reports", urlencoded: [("reason", "spam")],
            headers: [FormRoutesTests.browserAccept, ("Origin", "http://evil.example")],
            peer: "10.0.0.6")
        #expect(crossSite.status == 403)
        #expect(
            (await server.request("GET", "/api/v1/admin/posters/1", headers: ModerationRoutesTests.auth).json["reports"] as? [Any])?.count
                == 1)
    }
}

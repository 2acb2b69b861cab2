import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// The `/admin` moderation page in process: one login with the admin token, then a session
/// cookie (HttpOnly, SameSite=Strict, Secure over https, expiring on the server) and
/// same-origin forms.
@Suite struct AdminPageTests {
    static let own = FormRoutesTests.own
    static let browser = [FormRoutesTests.browserAccept, ("Origin", own)]

    /// Logs in and returns the `Cookie` header that carries the session.
    static func logIn(_ server: TestServer) async throws -> (String, String) {
        let reply = await server.request("POST", "/admin/login", urlencoded: [("token", AdminRoutesTests.token)], headers: browser)
        #expect(reply.status == 303 && reply.header("location") == "/admin", "\(reply.text)")
        let cookie = try #require(reply.header("set-cookie"))
        let pair = try #require(cookie.split(separator: ";").first)
        return ("Cookie", String(pair))
    }

    @Test func theTokenOpensASessionWhoseCookieIsHttpOnlyAndStrictAndEndsAtLogout() async throws {
        let server = try TestServer { $0.adminToken = AdminRoutesTests.token }
        let login = await server.request("GET", "/admin", headers: [FormRoutesTests.browserAccept])
        #expect(login.status == 200 && login.text.contains(#"<input type="password" name="token""#))
        let wrong = await server.request("POST", "/admin/login", urlencoded: [("token", "not-the-token-at-all")], headers: Self.browser)
        #expect(wrong.status == 401 && wrong.text.contains("The admin token is wrong.") && wrong.header("set-cookie") == nil)
        let reply = await server.request("POST", "/admin/login", urlencoded: [("token", AdminRoutesTests.token)], headers: Self.browser)
        let setCookie = try #require(reply.header("set-cookie"))
        #expect(setCookie.wholeMatch(of: /tenbin_admin=[0-9a-f]{64}; Path=\/admin; Max-Age=43200; HttpOnly; SameSite=Strict/) != nil)
        let cookie = try await Self.logIn(server)
        let page = await server.request("GET", "/admin", headers: [cookie])
        #expect(page.status == 200 && page.text.contains("<h2>Queue (0)</h2>") && page.text.contains("Nothing to review."))
        #expect(page.header("content-security-policy")?.contains("default-src 'self'") == true)
        let out = await server.request("POST", "/admin/logout", urlencoded: [], headers: Self.browser + [cookie])
        #expect(out.status == 303 && out.header("set-cookie")?.hasPrefix("tenbin_admin=; Path=/admin; Max-Age=0;") == true)
        #expect(await server.request("GET", "/admin", headers: [cookie]).text.contains(#"name="token""#))
    }

    @Test func overHttpsBehindATrustedProxyTheCookieIsSecure() async throws {
        let server = try TestServer {
            $0.adminToken = AdminRoutesTests.token
            $0.trustProxy = true
            $0.publicURLs = ["https://board.example"]
        }
        let reply = await server.request(
            "POST", "/admin/login", urlencoded: [("token", AdminRoutesTests.token)],
            headers: [
                FormRoutesTests.browserAccept, ("Origin", "https://board.example"), ("X-Forwarded-Proto", "https"),
                ("X-Forwarded-Host", "board.example"), ("X-Forwarded-For", "203.0.113.9"), ("Host", "board.example"),
            ])
        #expect(reply.status == 303, "\(reply.text)")
        #expect(reply.header("set-cookie")?.hasSuffix("; HttpOnly; SameSite=Strict; Secure") == true)
    }

    @Test func theQueueShowsReportsEscapedAndItsFormsActOnlyWithASessionFromThisOrigin() async throws {
        let server = try TestServer { $0.adminToken = AdminRoutesTests.token }
        await server.post(contents: "<b>question</b>")
        try server.board.report(id: 1, reason: .abuse, note: "<script>x</script>", reporter: "10.0.0.1")
        try server.board.hide(id: 1, actor: "ann")
        let cookie = try await Self.logIn(server)
        let page = await server.request("GET", "/admin", headers: [cookie])
        #expect(page.text.contains("<h2>Queue (1)</h2>") && page.text.contains("hidden since"))
        #expect(page.text.contains("&lt;script&gt;x&lt;/script&gt;") && !page.text.contains("<script>x"))
        #expect(page.text.contains("&lt;b&gt;question&lt;/b&gt;"))
        #expect(page.text.contains(#"<form class="admin-actions" method="post" action="/admin/posters/1/restore">"#))
        #expect(page.text.contains(#"formaction="/admin/posters/1/remove""#))

        let noSession = await server.request("POST", "/admin/posters/1/restore", urlencoded: [("reason", "x")], headers: Self.browser)
        #expect(noSession.status == 401 && noSession.header("content-type") == "text/html; charset=utf-8")
        let crossSite = await server.request(
            "POST", "/admin/posters/1/restore", urlencoded: [("reason", "x")],
            headers: [FormRoutesTests.browserAccept, ("Origin", "http://evil.example"), cookie])
        #expect(crossSite.status == 403)
        let noOrigin = await server.request("POST", "/admin/posters/1/restore", urlencoded: [("reason", "x")], headers: [cookie])
        #expect(noOrigin.status == 403)
        #expect(try server.board.isHidden(id: 1))

        let restored = await server.request(
            "POST", "/admin/posters/1/restore", urlencoded: [("reason", "fine")], headers: Self.browser + [cookie])
        #expect(restored.status == 303 && restored.header("location") == "/admin#poster-1")
        #expect(try !server.board.isHidden(id: 1))
        let removed = await server.request("POST", "/admin/posters/1/remove", urlencoded: [], headers: Self.browser + [cookie])
        #expect(removed.status == 303 && removed.header("location") == "/admin")
        #expect(
            try server.board.auditLog().map { "\($0.actor) \($0.action.rawValue) \($0.reason)" } == [
                "token remove ", "token restore fine", "ann hide ",
            ])
        let gone = await server.request("POST", "/admin/posters/1/hide", urlencoded: [], headers: Self.browser + [cookie])
        #expect(gone.status == 404 && gone.text.contains("poster #1: no such poster"))
    }

    @Test func thePageIsOffWithoutAnAdminToken() async throws {
        let server = try TestServer()
        let page = await server.request("GET", "/admin", headers: [FormRoutesTests.browserAccept])
        #expect(page.status == 403 && page.text.contains("moderation over HTTP is off"))
        let login = await server.request("POST", "/admin/login", urlencoded: [("token", "anything-goes-here-0123")], headers: Self.browser)
        #expect(login.status == 403)
    }

    @Test func aSessionExpiresOnTheServerWhateverTheCookieSays() {
        let clock = Locked(ContinuousClock.now)
        let sessions = AdminSessions(lifetime: .seconds(60), maximum: 2) { clock.withLock { $0 } }
        let first = sessions.create()
        #expect(first.count == 64 && sessions.isValid(first))
        // Another id differing in its first digit (a fixed "0" would be the same id one time in 16).
        let altered = (first.first == "0" ? "1" : "0") + first.dropFirst()
        #expect(!sessions.isValid(altered) && !sessions.isValid(nil))
        clock.withLock { $0 += .seconds(59) }
        #expect(sessions.isValid(first))
        clock.withLock { $0 += .seconds(2) }
        #expect(!sessions.isValid(first))
        // Beyond the most sessions kept, the oldest goes.
        let a = sessions.create()
        clock.withLock { $0 += .seconds(1) }
        let b = sessions.create()
        let c = sessions.create()
        #expect(!sessions.isValid(a) && sessions.isValid(b) && sessions.isValid(c))
        #expect(AdminSessions.id(inCookies: "x=1; tenbin_admin=\(b); y=2") == b)
    }
}

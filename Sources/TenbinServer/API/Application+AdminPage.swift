import TenbinKit

/// The `/admin` moderation page: log in once with the admin token, then a session cookie
/// (``AdminSessions``) opens the queue and its forms. Every write is a same-origin form (the
/// router requires a urlencoded body's `Origin` or `Referer` to be this server), answered with
/// 303 back to the page; actions are logged with the actor `token`, as over the admin API.
extension Application {
    /// `GET /admin`: the queue for a moderator with a session, else the login form.
    func adminPage(_ request: Request) throws -> Reply {
        try requireAdminToken()
        let text = WebText(language: WebLanguage(request.head))
        guard hasAdminSession(request.head) else { return .now(Self.html(WebPage.adminLogin(text: text))) }
        return executor.reply(failure: request.failure) { [self] in
            Self.html(
                WebPage.adminQueue(
                    try gateway.moderationQueue(), log: try gateway.auditLog(posterID: nil, before: nil, limit: 50), text: text))
        }
    }

    /// `POST /admin/login` with `token=…`: a session and its cookie, then 303 to `/admin`; a wrong
    /// token is the login form again with 401.
    func adminLogin(_ request: Request, _ body: RequestBody) throws(APIError) -> Reply {
        let adminToken = try requireAdminToken()
        guard case .form(let form) = body, form.parts.count == 1, form.parts[0].name == "token",
            let token = String(validating: form.parts[0].bytes, as: UTF8.self)
        else { throw .unprocessable("the login form has one field, token") }
        guard RequestPolicy.constantTimeEqual(Array(token.trimmingCharacters.utf8), adminToken) else {
            let text = WebText(language: WebLanguage(request.head))
            return .now(
                HTTPResponse(
                    status: 401, headers: Self.htmlHeaders,
                    body: .bytes(Array(WebPage.adminLogin(message: text[.adminTokenWrong], text: text).utf8))))
        }
        var answer = HTTPResponse.seeOther("/admin")
        answer.headers.append(
            ("Set-Cookie", AdminSessions.setCookie(adminSessions.create(), secure: isHTTPS(request.head), lifetime: adminSessions.lifetime))
        )
        return .now(answer)
    }

    /// `POST /admin/logout`: the session ends and its cookie is removed.
    func adminLogout(_ request: Request, _ body: RequestBody) throws(APIError) -> Reply {
        adminSessions.end(AdminSessions.id(inCookies: request.head.header("cookie")))
        var answer = HTTPResponse.seeOther("/admin")
        answer.headers.append(("Set-Cookie", AdminSessions.setCookie(nil, secure: isHTTPS(request.head), lifetime: .zero)))
        return .now(answer)
    }

    /// `POST /admin/posters/{id}/{restore,hide,remove}` with `reason=…` from the page.
    func adminPageAction(_ action: ModerationAction) -> @Sendable (Request, RequestBody) throws -> Reply {
        { [self] request, body in
            try requireAdminToken()
            guard hasAdminSession(request.head) else {
                throw APIError(status: 401, kind: "unauthorized", message: "log in on the moderation page first (your session ended)")
            }
            guard case .form(let form) = body else { throw APIError.badRequest("the body is not a form") }
            if let unknown = form.parts.first(where: { $0.name != "reason" }) {
                throw APIError.unprocessable("unknown field \"\(unknown.name.prefix(40))\"; a moderation form has reason")
            }
            let reason = form.parts.first.flatMap { String(validating: $0.bytes, as: UTF8.self) } ?? ""
            let id = request.poster()
            return executor.reply(failure: request.failure) { [self] in
                switch action {
                case .hide: _ = try gateway.hide(id: id, actor: Self.tokenActor, reason: reason)
                case .restore: _ = try gateway.restore(id: id, actor: Self.tokenActor, reason: reason)
                case .remove:
                    _ = try gateway.remove(id: id, actor: Self.tokenActor, reason: reason, options: RemoveOptions())
                    previewCards.forget(id)
                }
                committed()
                return .seeOther(action == .remove ? "/admin" : "/admin#poster-\(id)")
            }
        }
    }

    /// The admin token; throws 403 when the server has none (moderation over HTTP is off).
    @discardableResult
    private func requireAdminToken() throws(APIError) -> [UInt8] {
        guard let token = policy.adminToken else {
            throw .forbidden("moderation over HTTP is off on this server (no admin token is set)")
        }
        return token
    }

    /// Whether the request carries a live session's cookie.
    func hasAdminSession(_ head: RequestHead) -> Bool {
        adminSessions.isValid(AdminSessions.id(inCookies: head.header("cookie")))
    }

    /// Whether the request reached the server over https: through a trusted proxy that says so
    /// (tenbin itself serves plain HTTP).
    func isHTTPS(_ head: RequestHead) -> Bool {
        policy.trustProxy && head.header("x-forwarded-proto")?.equalsIgnoringASCIICase("https") == true
    }
}

import TenbinKit

/// The moderation routes: anyone's reports, and the moderators' queue, actions and log (admin
/// token). Every one acts through the board's moderation API, as `tenbin moderation` does.
extension Application {
    /// Who the audit log names for an action taken with the admin token.
    static let tokenActor = "token"

    /// `POST /api/v1/posters/{id}/reports` with `{"reason", "note"}`: 202 once recorded. The
    /// reporter is the client's address (behind `--trust-proxy`, the forwarded one); a second
    /// report of the same poster from it is 409.
    /// The page's menu sent without JavaScript (urlencoded) is answered with 303 back to the card.
    func report(_ request: Request, _ body: RequestBody) throws(APIError) -> Reply {
        let id = request.poster()
        let form = request.bodyKind == .urlencoded
        let (reason, note): (ReportReason, String)
        switch body {
        case .form(let parts) where form: (reason, note) = try APIInput.reportForm(parts)
        default: (reason, note) = try APIInput.report(Self.bytes(body))
        }
        let reporter = request.client
        let back = request.head.returnPath
        return executor.reply(failure: request.failure) { [self] in
            try gateway.report(id: id, reason: reason, note: note, reporter: reporter)
            committed()
            if form { return .seeOther(back + "#poster-\(id)") }
            return .json(JSON.reportAccepted(poster: id, reason: reason), status: 202)
        }
    }

    /// `GET /api/v1/admin/queue` (admin token): hidden and reported posters.
    func moderationQueue(_ request: Request) throws -> Reply {
        executor.reply(failure: request.failure) { [self] in .json(JSON.moderationQueue(try gateway.moderationQueue())) }
    }

    /// `GET /api/v1/admin/posters/{id}` (admin token): one poster, hidden or not, with its reports.
    func moderationItem(_ request: Request) throws -> Reply {
        let id = request.poster()
        return executor.reply(failure: request.failure) { [self] in .json(JSON.moderationItem(try gateway.moderationItem(id: id))) }
    }

    /// `GET /api/v1/admin/log?poster=&before=&limit=` (admin token): the audit log, newest first.
    func moderationLog(_ request: Request) throws -> Reply {
        let query = try request.query()
        let poster = try query["poster"].map { text throws(APIError) in
            guard let id = APIInput.posterID(Substring(text)) else { throw .badRequest("poster must be a poster id") }
            return id
        }
        let before = try query["before"].map { text throws(APIError) in
            guard let id = Int64(text), id > 0 else { throw .badRequest("before must be an entry id") }
            return id
        }
        let limit = try APIInput.limit(query, maximum: 1000)
        return executor.reply(failure: request.failure) { [self] in
            .json(JSON.auditLog(try gateway.auditLog(posterID: poster, before: before, limit: limit)))
        }
    }

    /// `POST /api/v1/admin/posters/{id}/{restore,hide,remove}` with `{"reason"}` (and, for
    /// remove, `"blockImages"`), admin token: the poster as moderators see it afterwards (the
    /// removed poster for remove).
    func moderate(_ action: ModerationAction) -> @Sendable (Request, RequestBody) throws -> Reply {
        { [self] request, body in
            let id = request.poster()
            let (reason, options) = try APIInput.moderation(Self.bytes(body), allowsBlocking: action == .remove)
            return executor.reply(failure: request.failure) { [self] in
                let answer: String
                switch action {
                case .hide: answer = JSON.moderationItem(try gateway.hide(id: id, actor: Self.tokenActor, reason: reason))
                case .restore: answer = JSON.moderationItem(try gateway.restore(id: id, actor: Self.tokenActor, reason: reason))
                case .remove:
                    answer = JSON.poster(try gateway.remove(id: id, actor: Self.tokenActor, reason: reason, options: options))
                }
                committed()
                return .json(answer)
            }
        }
    }
}

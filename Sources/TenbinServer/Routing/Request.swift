/// A request as a handler sees it: its head, the parameters its route's path matched, who sent
/// it, and the budget its route's policy spends.
struct Request: Sendable {
    /// The request line and header fields.
    let head: RequestHead
    /// The path's parameters, typed as the route declares them.
    let parameters: PathParameters
    /// The client's address (behind a trusted proxy, the one it forwarded).
    let client: String
    /// The kind of body the request declared (``BodyKind/none`` without one).
    let bodyKind: BodyKind
    /// The per-client budget the route spends, when it has one and the client pays.
    let budget: Budget?
    /// Turns an error into this request's answer (JSON, or a page for a browser's form).
    let failure: @Sendable (APIError) -> HTTPResponse

    /// A client's budget in one rate limiter.
    struct Budget: Sendable {
        let limiter: RateLimiter
        /// The error a refusal carries (with the operator's hint behind a proxy).
        let refusal: @Sendable (Int) -> APIError
    }

    /// The query, percent-decoded; 400 when it is not valid.
    func query() throws(APIError) -> QueryString {
        try APIInput.query(head.rawQuery)
    }

    /// A poster id the path declared as `{name:poster}`.
    func poster(_ name: String = "id") -> Int64 { parameters.poster(name) }

    /// Whether the answer goes to a browser's form as a page rather than JSON.
    var answersWithPage: Bool { bodyKind == .urlencoded || (bodyKind == .multipart && head.wantsPage) }

    /// Spends `units` of the client's budget (votes added by this request), all or nothing:
    /// 429 with `Retry-After` when fewer are left, and then nothing is spent.
    func spend(_ units: Int) throws(APIError) {
        guard let budget else { return }
        if let wait = budget.limiter.take(client, cost: units) { throw budget.refusal(wait) }
    }
}

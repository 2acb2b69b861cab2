#if canImport(TenbinKit)
    import TenbinKit
#endif

/// The bodies of the moderation routes.
extension APIInput {
    /// A report body: `{"reason": "spam|abuse|illegal|other", "note": "…"}`, the note optional.
    static func report(_ body: [UInt8]) throws(APIError) -> (reason: ReportReason, note: String) {
        let fields = try object(body)
        if let unknown = fields.keys.sorted().first(where: { $0 != "reason" && $0 != "note" }) {
            throw .unprocessable("unknown field \"\(unknown)\"; a report has reason and note")
        }
        guard case .string(let text)? = fields["reason"] else { throw .unprocessable(reasonRequired) }
        var note = ""
        if let value = fields["note"] {
            guard case .string(let text) = value else { throw .unprocessable("note must be a string") }
            note = text
        }
        return try checkedReport(reason: text, note: note)
    }

    /// The page's report menu sent without JavaScript: `reason=…&note=…`, urlencoded.
    static func reportForm(_ form: FormParts) throws(APIError) -> (reason: ReportReason, note: String) {
        if let unknown = form.parts.first(where: { $0.name != "reason" && $0.name != "note" }) {
            throw .unprocessable("unknown field \"\(unknown.name.prefix(40))\"; a report form has reason and note")
        }
        func text(_ name: String) throws(APIError) -> String? {
            guard let part = form.parts.first(where: { $0.name == name }) else { return nil }
            guard let text = String(validating: part.bytes, as: UTF8.self) else { throw .unprocessable("\(name) is not UTF-8 text") }
            return text
        }
        guard let reason = try text("reason") else { throw .unprocessable(reasonRequired) }
        return try checkedReport(reason: reason, note: try text("note") ?? "")
    }

    private static let reasonRequired = "reason is required: one of \(ReportReason.allCases.map(\.rawValue).joined(separator: ", "))"

    /// A reason and a note as the board takes them (it checks both again).
    private static func checkedReport(reason text: String, note: String) throws(APIError) -> (reason: ReportReason, note: String) {
        let reason: ReportReason
        do {
            reason = try ReportReason(parsing: text)
        } catch {
            throw .unprocessable(error.description)
        }
        guard note.count <= Board.maximumReportNote else { throw .unprocessable(ModerationError.noteTooLong(note.count).description) }
        return (reason, note)
    }

    /// A moderator's action body: `{"reason": "…", "blockImages": false}`, each optional
    /// (`blockImages` on remove only); an empty body is no reason.
    static func moderation(_ body: [UInt8], allowsBlocking: Bool) throws(APIError) -> (reason: String, options: RemoveOptions) {
        guard !body.isEmpty else { return ("", RemoveOptions()) }
        let fields = try object(body)
        let known = allowsBlocking ? ["reason", "blockImages"] : ["reason"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw .unprocessable("unknown field \"\(unknown)\"; this action takes \(known.joined(separator: " and "))")
        }
        var reason = ""
        if let value = fields["reason"] {
            guard case .string(let text) = value else { throw .unprocessable("reason must be a string") }
            guard text.count <= Board.maximumModerationReason else {
                throw .unprocessable(ModerationError.reasonTooLong(text.count).description)
            }
            reason = text
        }
        var options = RemoveOptions()
        if let value = fields["blockImages"] {
            guard case .bool(let block) = value else { throw .unprocessable("blockImages must be true or false") }
            options.blockImages = block
        }
        return (reason, options)
    }
}

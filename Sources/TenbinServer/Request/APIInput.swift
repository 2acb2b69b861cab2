#if canImport(TenbinKit)
    import TenbinKit
#endif

/// What the API reads from a request's query and body, checked and bounded. Pure functions of
/// their input (no connection, no board), so they can be tested and fuzzed alone.
enum APIInput {
    /// The most posters a page may hold.
    static let maximumLimit = 100
    /// The most votes one request may add.
    static let maximumTimes = 100
    /// The most bytes of a JSON body.
    static let maximumJSONBytes = 16 * 1024

    /// The query of a request; 400 when it is not percent-encoded UTF-8. Read by tenbin's own
    /// ``QueryString``, not libmicrohttpd's GET arguments, for what they cannot say: MHD decodes
    /// a bad escape (`%zz`) or bytes that are not UTF-8 silently, where a query must be refused
    /// naming the problem; and the read cache keys on the raw query anyway. Its cost is under a
    /// microsecond for a page's query (docs/benchmarks.md's serve rows include it).
    static func query(_ raw: Substring) throws(APIError) -> QueryString {
        do {
            return try QueryString(raw)
        } catch .tooLong {
            throw .badRequest("the query is longer than \(QueryString.maximumBytes) bytes")
        } catch {
            throw .badRequest("the query is not percent-encoded UTF-8")
        }
    }

    /// A tag from a path segment (`/t/{tag}`, `/api/v1/tags/{tag}`), percent-decoded; `+` is
    /// itself there, as in any path.
    static func tag(_ segment: Substring) throws(APIError) -> String {
        do {
            return try QueryString.decode(Substring(segment.replacing("+", with: "%2B")).utf8[...])
        } catch {
            throw .badRequest("the tag in the path is not percent-encoded UTF-8")
        }
    }

    /// `sort=new|popular|trending` (default new).
    static func order(_ query: QueryString) throws(APIError) -> FeedOrder {
        guard let text = query["sort"] else { return .new }
        guard let order = FeedOrder(rawValue: text) else { throw .badRequest("sort must be new, popular or trending") }
        return order
    }

    /// `bucket=minute|hour|day` (default hour), a timeline's bucket size.
    static func bucket(_ query: QueryString) throws(APIError) -> TimelineBucketSize {
        guard let text = query["bucket"] else { return .hour }
        guard let size = TimelineBucketSize(name: text) else { throw .badRequest("bucket must be minute, hour or day") }
        return size
    }

    /// `limit=N`, 1 to `maximum` (default 20).
    static func limit(_ query: QueryString, maximum: Int = maximumLimit) throws(APIError) -> Int {
        guard let text = query["limit"] else { return min(20, maximum) }
        guard text.count <= 6, let limit = Int(text), (1...maximum).contains(limit) else {
            throw .badRequest("limit must be a whole number from 1 to \(maximum)")
        }
        return limit
    }

    /// `cursor=…` when present and not empty.
    static func cursor(_ query: QueryString) -> String? {
        guard let cursor = query["cursor"], !cursor.isEmpty else { return nil }
        return cursor
    }

    /// A poster id from a path segment; nil when it is not one (the path then names nothing).
    static func posterID(_ segment: Substring) -> Int64? {
        guard !segment.isEmpty, segment.count <= 19, segment.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let id = Int64(segment), id >= 1
        else { return nil }
        return id
    }

    /// `poster=ID` in a query: a poster id, else 400.
    static func posterID(query text: String) throws(APIError) -> Int64 {
        guard let id = posterID(text[...]) else { throw .badRequest("poster must be a poster id (a whole number from 1)") }
        return id
    }

    /// A JSON object body. A UTF-8 byte-order mark before it is skipped (some clients write
    /// one); a key given twice is refused, since either value could be the one meant.
    static func object(_ body: [UInt8]) throws(APIError) -> [String: JSONValue] {
        guard body.count <= maximumJSONBytes else { throw .tooLarge("the JSON body is larger than \(maximumJSONBytes) bytes") }
        let mark = body.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let parsed = body[mark...].withUnsafeBufferPointer { buffer in
            Result { () throws(JSONValue.SyntaxError) in try JSONValue.parse(buffer, rejectingDuplicateKeys: true) }
        }
        let value: JSONValue
        switch parsed {
        case .success(let parsed): value = parsed
        case .failure(let error):
            // Columns count the body's bytes, the mark's too.
            throw .badRequest("the body is not valid JSON: \(error.reason) at column \(error.column + mark)")
        }
        guard case .object(let fields) = value else { throw .badRequest("the body must be a JSON object") }
        return fields
    }

    /// A vote body: `{"side": 1|2, "times": N}`, times 1 by default.
    static func vote(_ body: [UInt8]) throws(APIError) -> (side: VoteSide, times: Int) {
        if let vote = quickVote(body) { return vote }
        return try parsedVote(body)
    }

    /// A vote from the page's form: `side=1` or `side=2` (urlencoded, read by libmicrohttpd's
    /// form reader), one vote.
    static func formVote(_ form: FormParts) throws(APIError) -> VoteSide {
        if let unknown = form.parts.first(where: { $0.name != "side" }) {
            throw .unprocessable("unknown field \"\(unknown.name.prefix(40))\"; a vote form has side")
        }
        guard form.parts.count == 1, let text = String(validating: form.parts[0].bytes, as: UTF8.self),
            let side = Int(text).flatMap({ VoteSide(rawValue: $0) })
        else { throw .unprocessable("side must be 1 or 2") }
        return side
    }

    /// ``vote(_:)`` through the full JSON parser.
    static func parsedVote(_ body: [UInt8]) throws(APIError) -> (side: VoteSide, times: Int) {
        let fields = try object(body)
        if let unknown = fields.keys.sorted().first(where: { $0 != "side" && $0 != "times" }) {
            throw .unprocessable("unknown field \"\(unknown)\"; a vote has side and times")
        }
        guard case .number(let sideNumber)? = fields["side"] else { throw .unprocessable("side is required: 1 or 2") }
        guard let side = wholeNumber(sideNumber).flatMap({ VoteSide(rawValue: $0) }) else { throw .unprocessable("side must be 1 or 2") }
        var times = 1
        if let value = fields["times"] {
            guard case .number(let number) = value, let count = wholeNumber(number), (1...maximumTimes).contains(count) else {
                throw .unprocessable("times must be a whole number from 1 to \(maximumTimes)")
            }
            times = count
        }
        return (side, times)
    }

    /// An edit body: `{"contents": "…", "hashtags": ["…"]}`, each optional, at least one.
    static func edit(_ body: [UInt8]) throws(APIError) -> (contents: String?, hashtags: [String]?) {
        let fields = try object(body)
        if let unknown = fields.keys.sorted().first(where: { $0 != "contents" && $0 != "hashtags" }) {
            throw .unprocessable("unknown field \"\(unknown)\"; an edit has contents and hashtags")
        }
        var contents: String?
        if let value = fields["contents"] {
            guard case .string(let text) = value else { throw .unprocessable("contents must be a string") }
            contents = try checkedContents(text)
        }
        var hashtags: [String]?
        if let value = fields["hashtags"] {
            guard case .array(let items) = value else { throw .unprocessable("hashtags must be an array of strings") }
            var tags: [String] = []
            for item in items {
                guard case .string(let tag) = item else { throw .unprocessable("hashtags must be an array of strings") }
                tags.append(tag)
            }
            hashtags = try checkedHashtags(tags)
        }
        guard contents != nil || hashtags != nil else { throw .unprocessable("an edit needs contents, hashtags or both") }
        return (contents, hashtags)
    }

    /// A question within ``PosterTextLimits`` (the core checks it again; checking here refuses
    /// the request before any image is read); 422 when it is not.
    static func checkedContents(_ text: String) throws(APIError) -> String {
        do {
            try PosterTextLimits.check(contents: text)
        } catch {
            throw .unprocessable(error.description)
        }
        return text
    }

    /// Hashtags within ``PosterTextLimits``, returned as sent (the board normalises them); 422
    /// when they are not.
    static func checkedHashtags(_ tags: [String]) throws(APIError) -> [String] {
        do {
            try PosterTextLimits.check(hashtags: tags)
        } catch {
            throw .unprocessable(error.description)
        }
        return tags
    }

    /// The whole number a JSON number stands for, when it is one of modest size.
    private static func wholeNumber(_ number: Double) -> Int? {
        guard number.isFinite, number.rounded() == number, abs(number) < 1e9 else { return nil }
        return Int(number)
    }

    /// The words of the page's hashtag box, "separated by spaces or commas": split on white
    /// space (U+3000 included) and on `,`, `、` and `，`, as app.js's `splitTags` does.
    static func splitHashtagBox(_ text: String) -> [String] {
        text.split { character in character.isWhitespace || character == "," || character == "、" || character == "，" }.map(String.init)
    }

    /// The fields of a new poster's form: `image1`, `image2` (files), `contents`, `hashtags`
    /// (repeated), `alt1` and `alt2` (each image's alt text, optional). Anything else, a
    /// missing image or an image or a text given twice is refused.
    struct PosterForm: Sendable, Equatable {
        var image1: [UInt8]
        var image2: [UInt8]
        var contents: String
        var hashtags: [String]
        var alt1 = ""
        var alt2 = ""
    }

    /// Reads a poster form's parts. With `oneHashtagBox` (the page's own form, sent by a
    /// browser without its script), each `hashtags` field is the page's one hashtag box and is
    /// split into words as the script splits it (``splitHashtagBox(_:)``); a program's form
    /// names one hashtag per field, kept as sent.
    static func posterForm(_ form: FormParts, oneHashtagBox: Bool = false) throws(APIError) -> PosterForm {
        let known: Set<String> = ["image1", "image2", "contents", "hashtags", "alt1", "alt2"]
        if let unknown = form.parts.first(where: { !known.contains($0.name) }) {
            throw .badRequest(
                "unexpected form field \"\(unknown.name.prefix(40))\"; a poster has image1, image2, contents, hashtags, alt1 and alt2")
        }
        func image(_ name: String) throws(APIError) -> [UInt8] {
            let parts = form.all(name)
            guard parts.count == 1 else {
                throw .badRequest(
                    parts.isEmpty ? "the form has no \(name): a poster needs two images" : "the form has more than one \(name)")
            }
            return parts[0].bytes
        }
        let image1 = try image("image1")
        let image2 = try image("image2")
        func text(_ part: FormParts.Part) throws(APIError) -> String {
            guard let text = String(validating: part.bytes, as: UTF8.self) else {
                throw .badRequest("the form field \(part.name) is not UTF-8")
            }
            return text
        }
        // A field given at most once: its text, or "" without it.
        func single(_ name: String) throws(APIError) -> String {
            let parts = form.all(name)
            guard parts.count <= 1 else { throw .badRequest("the form has more than one \(name) field") }
            return try parts.first.map { (part) throws(APIError) in try text(part) } ?? ""
        }
        let contents = try single("contents")
        let (alt1, alt2) = (try single("alt1"), try single("alt2"))
        do {
            try PosterTextLimits.check(alt1: alt1, alt2: alt2)
        } catch {
            throw .unprocessable(error.description)
        }
        var hashtags: [String] = []
        for part in form.all("hashtags") {
            let field = try text(part)
            if oneHashtagBox { hashtags += splitHashtagBox(field) } else { hashtags.append(field) }
        }
        return PosterForm(
            image1: image1, image2: image2, contents: try checkedContents(contents), hashtags: try checkedHashtags(hashtags),
            alt1: alt1, alt2: alt2)
    }
}

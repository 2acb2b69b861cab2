// libFuzzer target: what tenbin serve parses from a request — the query string, the page
// cursor, JSON vote and edit bodies, and a multipart form's parts fed chunk by chunk then read
// as a poster form. None may crash, and each must keep its promises: a parsed query
// re-encodes to the same items; a cursor reads back from its own text; the quick vote reader
// agrees with the full JSON parser whenever it answers; a form never holds more parts or
// bytes than its limits. Compiled with TenbinKit's sources and the server's request-parsing files
// by scripts/fuzz.sh.

@_cdecl("tenbin_fuzz_request")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Four sections split at 0xFF bytes: query, cursor, JSON body, form script.
    let sections = bytes.split(separator: 0xFF, maxSplits: 3, omittingEmptySubsequences: false).map(Array.init)
    func section(_ index: Int) -> [UInt8] { index < sections.count ? sections[index] : [] }

    fuzzQuery(section(0))
    fuzzCursor(String(decoding: section(1), as: UTF8.self))
    _ = try? APIInput.vote(section(2))
    if let quick = APIInput.quickVote(section(2)) {
        precondition((try? APIInput.parsedVote(section(2))).map { $0 == quick } == true, "the quick vote reader disagrees")
    }
    _ = try? APIInput.edit(section(2))
    fuzzForm(section(3))
    return 0
}

private func fuzzQuery(_ raw: [UInt8]) {
    let text = String(decoding: raw, as: UTF8.self)
    guard let query = try? QueryString(Substring(text)) else { return }
    _ = try? APIInput.order(query)
    _ = try? APIInput.limit(query)
    if let cursor = APIInput.cursor(query) { fuzzCursor(cursor) }
    for item in query.items { _ = APIInput.posterID(Substring(item.value)) }
    // Re-encoding every item and parsing again gives the same items.
    let again = query.items.map { percentEncode($0.name) + "=" + percentEncode($0.value) }.joined(separator: "&")
    guard let reparsed = try? QueryString(Substring(again)) else {
        if again.utf8.count <= QueryString.maximumBytes { preconditionFailure("a re-encoded query does not parse: \(again)") }
        return
    }
    precondition(
        reparsed.items.filter { !$0.name.isEmpty || !$0.value.isEmpty }.map { [$0.name, $0.value] }
            == query.items.filter { !$0.name.isEmpty || !$0.value.isEmpty }.map { [$0.name, $0.value] },
        "a query changed through re-encoding")
}

private func percentEncode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            out += "%" + (hex.count == 1 ? "0" : "") + hex
        }
    }
    return out
}

private func fuzzCursor(_ text: String) {
    guard let cursor = PageCursor(encoded: text) else { return }
    precondition(PageCursor(encoded: cursor.encoded) == cursor, "a cursor does not read back from its own text")
}

/// Runs a script of form chunks: each step takes a name (from a few, unknown ones included),
/// whether it is a file, an offset and a length from the next bytes.
private func fuzzForm(_ script: [UInt8]) {
    let limits = FormLimits(maximumBytes: 4096, maximumParts: 8, maximumFileBytes: 1024, maximumFieldBytes: 64)
    var form = FormParts(limits: limits)
    let names = ["image1", "image2", "contents", "hashtags", "image3", "", "IMAGE1", "hashtags\u{0}"]
    var index = 0
    while index + 3 <= script.count {
        let name = names[Int(script[index] & 7)]
        let isFile = script[index] & 8 != 0
        let offset = UInt64(script[index + 1]) * (script[index] & 16 != 0 ? 1 : 0)
        let length = min(Int(script[index + 2]), script.count - index - 3)
        let chunk = Array(script[(index + 3)..<(index + 3 + length)])
        index += 3 + length
        do {
            try chunk.withUnsafeBufferPointer {
                try form.receive(name: name, filename: isFile ? "f" : nil, contentType: nil, chunk: $0, offset: offset)
            }
        } catch {
            break
        }
        precondition(form.parts.count <= limits.maximumParts, "a form holds more parts than its limit")
        precondition(form.parts.map(\.bytes.count).reduce(0, +) <= limits.maximumBytes, "a form holds more bytes than its limit")
        for part in form.parts {
            precondition(
                part.bytes.count <= (part.filename == nil ? limits.maximumFieldBytes : limits.maximumFileBytes), "a part is over its limit")
        }
    }
    if let poster = try? APIInput.posterForm(form) {
        precondition(
            form.all("image1").count == 1 && form.all("image2").count == 1, "a poster form without exactly two images was accepted")
        precondition(Hashtags.normalize(poster.hashtags).count <= PosterTextLimits.maximumHashtags, "too many hashtags were accepted")
    }
}

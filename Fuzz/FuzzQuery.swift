// libFuzzer target: arbitrary bytes as a search query and as a poster's text. Parsing,
// normalising, building the index terms and the index document must never crash,
// and the index must never miss: a poster whose key contains every query word must have, in
// its document, every token the query looks up. Compiled with TenbinKit's sources by
// scripts/fuzz.sh.

@_cdecl("tenbin_fuzz_query")
public func fuzzQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The first half is the query, the rest the poster's text (split at the first 0xFF).
    let cut = bytes.firstIndex(of: 0xFF) ?? bytes.count
    let query = SearchQuery(String(decoding: bytes[..<cut], as: UTF8.self))
    let contents = String(decoding: bytes[min(cut + 1, bytes.count)...], as: UTF8.self)
    let key = SearchText.key(contents: contents, hashtags: [])
    let document = Set(SearchGrams.document(forKey: key).split(separator: " "))
    let terms = SearchGrams.terms(for: query)
    guard !terms.isEmpty else {
        precondition(query.isEmpty, "only an empty query has no index terms")
        return 0
    }
    if query.matches(key: key) {
        // Every term must be in the document (a prefix term: some token starting with it),
        // or the index would miss a poster the recheck accepts.
        for term in terms {
            let found = term.isPrefix ? document.contains { $0.hasPrefix(term.token) } : document.contains(Substring(term.token))
            precondition(found, "the index would miss a matching poster")
        }
    }
    return 0
}

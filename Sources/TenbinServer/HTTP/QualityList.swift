/// A header field that lists what a client takes, each item with an optional weight
/// (`Accept: image/avif,image/webp,*/*;q=0.8`, `Accept-Encoding: gzip, br;q=0`).
enum QualityList {
    /// Whether `header` names `token` (ASCII case folded) with a weight above 0. Wildcards are
    /// not taken as naming it: a server offering a variant wants it asked for.
    static func accepts(_ header: String?, _ token: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { String($0.trimmingCharacters).lowercased() }
            guard parts.first == token else { return false }
            // "q=0", "q=0.0", "q=0.000": refused; any other weight takes it.
            return !parts.dropFirst().contains { $0.hasPrefix("q=") && $0.dropFirst(2).allSatisfy { $0 == "0" || $0 == "." } }
        }
    }
}

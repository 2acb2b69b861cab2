import CZlib

/// gzip for text answers: the web page, its script and style sheet shrink about tenfold (a
/// 43 KB page of twenty posters to under 4 KB), which is most of what a phone on a slow network
/// waits for. The only file that reaches zlib (through CZlib).
enum Gzip {
    /// Bodies smaller than this are sent as they are: gzip's header and trailer alone are 18
    /// bytes, and a small answer is one packet either way.
    static let smallest = 1024

    /// `bytes` as one gzip member, or nil when it is too small to be worth it, would not shrink,
    /// or zlib fails (the answer is then sent uncompressed, which is always correct).
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= smallest else { return nil }
        let capacity = tb_gzip_bound(bytes.count)
        var output = [UInt8](repeating: 0, count: capacity)
        let written = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                tb_gzip(input.baseAddress, input.count, out.baseAddress, out.count)
            }
        }
        guard written > 0, written < bytes.count else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// Whether a request's `Accept-Encoding` takes gzip: named, and not with `q=0`.
    static func accepted(by header: String?) -> Bool {
        QualityList.accepts(header, "gzip")
    }
}

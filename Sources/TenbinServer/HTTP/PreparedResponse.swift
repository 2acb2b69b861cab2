import CMicroHTTPD
import Synchronization

/// An answer whose head and body never change, sent as it is to every request that asks for
/// it (a blob kept in memory): libmicrohttpd's response is made the first time it is queued and
/// queued again for each later request (the library counts a response's users), so a request
/// makes no response, copies no header field and completes no security headers.
final class PreparedResponse: Sendable {
    /// The status, header fields and bytes it answers with.
    let status: Int
    let headers: [(name: String, value: String)]
    let bytes: SharedBytes
    /// libmicrohttpd's response, as a pointer's bits (0 until the daemon first queues it);
    /// destroyed with this object.
    private let made = Atomic<UInt>(0)

    init(status: Int, headers: [(name: String, value: String)], bytes: SharedBytes) {
        self.status = status
        self.headers = headers
        self.bytes = bytes
    }

    deinit {
        if let response = OpaquePointer(bitPattern: made.load(ordering: .acquiring)) { MHD_destroy_response(response) }
    }

    /// The answer to hand back: its status and header fields are the prepared ones, which the
    /// daemon sends (it does not look at the response's own).
    var answer: HTTPResponse { HTTPResponse(status: status, headers: headers, body: .prepared(self)) }

    /// The answer as a response of its own, for a path that cannot send the prepared one (a
    /// draining server adding `Connection: close`).
    var response: HTTPResponse { HTTPResponse(status: status, headers: headers, body: .shared(bytes)) }

    /// libmicrohttpd's response: the one made already, or the one `make` makes now (nil if it
    /// cannot). Two threads may both make one at first; one is kept and the other destroyed.
    func libraryResponse(make: () -> OpaquePointer?) -> OpaquePointer? {
        if let response = OpaquePointer(bitPattern: made.load(ordering: .acquiring)) { return response }
        guard let response = make() else { return nil }
        let (stored, earlier) = made.compareExchange(
            expected: 0, desired: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(response))), ordering: .acquiringAndReleasing)
        guard !stored, let kept = OpaquePointer(bitPattern: earlier) else { return response }
        MHD_destroy_response(response)
        return kept
    }
}

import Foundation

/// An HTTP answer as read off the socket.
struct HTTPReply {
    let status: Int
    /// Header fields by lowercased name.
    let headers: [String: String]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    /// `error.kind` of a JSON error answer.
    var errorKind: String? { (json["error"] as? [String: Any])?["kind"] as? String }

    /// `error.message` of a JSON error answer.
    var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
}

/// A plain TCP connection to a loopback port that speaks HTTP/1.1 by hand, so tests can send
/// exactly the bytes they want (malformed ones included) and read exactly what comes back.
final class HTTPConnection {
    let descriptor: Int32
    let port: UInt16
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, from `source` when given (another loopback address, such
    /// as 127.0.0.2, that no other test connects from); reads time out after `timeout` seconds.
    init(port: UInt16, from source: String? = nil, timeout: Int = 30) throws {
        self.port = port
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else {
            closed = true
            throw ServeError("socket failed: \(errno)")
        }
        if let source {
            guard Self.withAddress(source, port: 0, { bind(descriptor, $0, $1) }) == 0 else {
                let code = errno
                close()
                throw ServeError("bind to \(source) failed: errno \(code)")
            }
        }
        let status = Self.withAddress("127.0.0.1", port: port) { Glibc.connect(descriptor, $0, $1) }
        guard status == 0 else {
            let code = errno
            // Closed through close(), which marks it: the deinit that follows a throw from a
            // fully initialised object would otherwise close the number again, by then perhaps
            // another thread's fresh descriptor (a launcher's pipe failed with EBADF that way).
            close()
            throw ServeError("connect to port \(port) failed: errno \(code)")
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// `call` with `host`:`port` as an IPv4 socket address and its length.
    private static func withAddress(_ host: String, port: UInt16, _ call: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    deinit { close() }

    private var closed = false

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(descriptor)
    }

    /// Writes all of `bytes` (throws when the server has closed the connection).
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw ServeError("send failed: errno \(errno)") }
            sent += count
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends a request with `Host` and (for a body) `Content-Length`, and reads the answer.
    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) throws -> HTTPReply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + (body ?? []))
        return try readReply(method: method)
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count < 0 { throw ServeError("recv failed: errno \(errno)") }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    /// Reads until `marker` has arrived; returns everything up to and including it.
    func read(until marker: [UInt8]) throws -> [UInt8] {
        while true {
            if let range = buffer.firstRange(of: marker) {
                let taken = Array(buffer[..<range.upperBound])
                buffer.removeFirst(range.upperBound)
                return taken
            }
            guard try fill() else { throw ServeError("the connection ended before \(String(decoding: marker, as: UTF8.self))") }
        }
    }

    func read(until marker: String) throws -> String { String(decoding: try read(until: Array(marker.utf8)), as: UTF8.self) }

    private var decoded: [UInt8] = []

    /// Reads a chunked body until `marker` has arrived in its decoded bytes; returns everything
    /// decoded up to and including it. Throws at the body's last chunk.
    func readChunked(until marker: String) throws -> String {
        let marker = Array(marker.utf8)
        while true {
            if let range = decoded.firstRange(of: marker) {
                let taken = Array(decoded[..<range.upperBound])
                decoded.removeFirst(range.upperBound)
                return String(decoding: taken, as: UTF8.self)
            }
            let sizeLine = String(decoding: try read(until: Array("\r\n".utf8)), as: UTF8.self)
            guard let size = Int(sizeLine.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) else {
                throw ServeError("bad chunk size \(sizeLine.debugDescription)")
            }
            if size == 0 { throw ServeError("the body ended") }
            while buffer.count < size + 2 { guard try fill() else { throw ServeError("a chunk ended early") } }
            decoded += buffer[..<size]
            buffer.removeFirst(size + 2)
        }
    }

    /// Whether the body's last chunk arrives (after any decoded bytes still to come).
    func readsLastChunk() -> Bool {
        while true {
            guard let sizeLine = try? read(until: Array("\r\n".utf8)) else { return false }
            guard let size = Int(String(decoding: sizeLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), radix: 16)
            else { return false }
            if size == 0 { return true }
            while buffer.count < size + 2 { guard (try? fill()) == true else { return false } }
            buffer.removeFirst(size + 2)
        }
    }

    /// Whether the server closed the connection (reads until end of stream or timeout).
    func isClosedByServer() -> Bool {
        while true {
            guard let more = try? fill() else { return false }
            if !more { return true }
        }
    }

    /// Reads one answer (the body by Content-Length, chunks, or to the end of the stream).
    func readReply(method: String = "GET") throws -> HTTPReply {
        let headText = String(decoding: try read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
        let lines = headText.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw ServeError("bad status line: \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where line.contains(":") {
            let colon = line.firstIndex(of: ":")!
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if method == "HEAD" || status == 304 || status == 204 || status / 100 == 1 {
            return HTTPReply(status: status, headers: headers, body: [])
        }
        var body: [UInt8] = []
        if let length = headers["content-length"].flatMap(Int.init) {
            while buffer.count < length { guard try fill() else { throw ServeError("the body ended early") } }
            body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                let sizeLine = String(decoding: try read(until: Array("\r\n".utf8)), as: UTF8.self)
                guard let size = Int(sizeLine.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) else {
                    throw ServeError("bad chunk size \(sizeLine)")
                }
                while buffer.count < size + 2 { guard try fill() else { throw ServeError("a chunk ended early") } }
                body += buffer[..<size]
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else {
            while try fill() {}
            body = buffer
            buffer = []
        }
        return HTTPReply(status: status, headers: headers, body: body)
    }
}

/// A `multipart/form-data` body.
struct Multipart {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var bytes: [UInt8]
    }

    var parts: [Part] = []
    let boundary = "tenbin-test-boundary-7d93c1"

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func file(_ name: String, path: String, filename: String? = nil) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        parts.append(
            Part(
                name: name, filename: filename ?? (path as NSString).lastPathComponent, contentType: "application/octet-stream",
                bytes: bytes))
    }

    mutating func field(_ name: String, _ value: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, bytes: Array(value.utf8)))
    }

    var body: [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { head += "; filename=\"\(filename)\"" }
            head += "\r\n"
            if let type = part.contentType { head += "Content-Type: \(type)\r\n" }
            out += Array((head + "\r\n").utf8) + part.bytes + Array("\r\n".utf8)
        }
        return out + Array("--\(boundary)--\r\n".utf8)
    }
}

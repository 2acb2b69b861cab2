import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Plain HTTP/1.1 over loopback sockets for the serve benchmark: a port nothing listens on,
/// whole GETs, and long-lived event streams read as they arrive.
enum LoopbackHTTP {
    /// A port nothing listens on now: the kernel's choice for a socket bound to port 0.
    static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket() failed: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("cannot bind a loopback port: \(String(cString: strerror(errno)))") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// A connected socket to 127.0.0.1:`port`, or -1.
    static func connect(port: UInt16) -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return -1 }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if !connected {
            close(socket)
            return -1
        }
        return socket
    }

    /// Waits until something accepts connections on `port`, for at most `seconds`.
    static func waitForListener(port: UInt16, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let socket = connect(port: port)
            if socket >= 0 {
                close(socket)
                return
            }
            usleep(50_000)
        }
        throw BenchError("nothing listens on 127.0.0.1:\(port) after \(seconds) s")
    }

    /// `GET path` with `Connection: close`: the status and the body (chunked bodies joined).
    static func get(port: UInt16, _ path: String) throws -> (status: Int, body: [UInt8]) {
        let socket = connect(port: port)
        guard socket >= 0 else { throw BenchError("cannot connect to 127.0.0.1:\(port)") }
        defer { close(socket) }
        try send(socket, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(socket, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            response += buffer[..<count]
        }
        guard let end = response.firstRange(of: Array("\r\n\r\n".utf8)) else { throw BenchError("no HTTP answer to GET \(path)") }
        let head = String(decoding: response[..<end.lowerBound], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var body = Array(response[end.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = dechunk(body) }
        return (status, body)
    }

    static func send(_ socket: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError("write failed: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    private static func dechunk(_ body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while let lineEnd = body[index...].firstRange(of: [13, 10]) {
            let size = Int(String(decoding: body[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
            if size == 0 { break }
            out += body[lineEnd.upperBound..<min(body.count, lineEnd.upperBound + size)]
            index = min(body.count, lineEnd.upperBound + size + 2)
        }
        return out
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return address
    }
}

/// One open `GET /api/v1/feed` stream, read only when asked.
final class FeedStream {
    let socket: Int32
    private var pending: [UInt8] = []
    /// Bytes received so far (head and chunk framing included), for the wire-size table.
    private(set) var received = 0

    /// Opens the feed at `path`, asking for gzip when `gzip` is set.
    init(port: UInt16, path: String, gzip: Bool = false) throws {
        socket = LoopbackHTTP.connect(port: port)
        guard socket >= 0 else { throw BenchError("cannot open feed \(pending.count): \(String(cString: strerror(errno)))") }
        let encoding = gzip ? "Accept-Encoding: gzip\r\n" : ""
        try LoopbackHTTP.send(socket, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\(encoding)\r\n")
    }

    deinit {
        close(socket)
    }

    /// Reads until the received text contains `marker` (which is consumed with everything
    /// before it), waiting at most `seconds`.
    func read(until marker: String, within seconds: Double) throws {
        let needle = Array(marker.utf8)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while true {
            if let found = pending.firstRange(of: needle) {
                pending.removeSubrange(..<found.upperBound)
                return
            }
            guard try fill(until: deadline) else { throw BenchError("the feed sent no \(marker) within \(seconds) s") }
        }
    }

    /// Reads until `count` bytes in all have been received, waiting at most `seconds`.
    func read(atLeast count: Int, within seconds: Double) throws {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while received < count {
            guard try fill(until: deadline) else { throw BenchError("the feed sent \(received) bytes, not \(count), within \(seconds) s") }
        }
    }

    /// Reads whatever arrives for `seconds`.
    func drain(for seconds: Double) throws {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while try fill(until: deadline) {}
    }

    /// Reads once what is there, waiting until `deadline` at most; false at the deadline.
    private func fill(until deadline: UInt64) throws -> Bool {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = Glibc.read(socket, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError("the feed closed") }
            received += count
            pending += buffer[..<count]
            // Keep only a tail long enough to hold a marker split across reads.
            if pending.count > 1 << 20 { pending.removeFirst(pending.count - (1 << 16)) }
            return true
        }
    }
}

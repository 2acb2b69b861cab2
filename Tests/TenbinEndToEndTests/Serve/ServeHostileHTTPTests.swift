import Foundation
import Testing

/// Malformed and hostile HTTP against a real server: after each, the server still answers
/// other clients and the store passes `tenbin check`.
@Suite(.timeLimit(.minutes(3))) struct ServeHostileHTTPTests {
    static func stillServes(_ server: ServeProcess) throws {
        let reply = try server.request("GET", "/healthz")
        #expect(reply.status == 200)
        #expect(try Tenbin.run(["check"], store: server.store).status == 0)
    }

    @Test func garbageRequestLinesAreRefused() throws {
        let server = try ServeProcess()
        for garbage in [
            "GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/9.9\r\nHost: x\r\n\r\n", "\u{1}\u{2}\u{3} / HTTP/1.1\r\n\r\n",
            "GET /%00 HTTP/1.1\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nBad Header Without Colon\r\n\r\n",
        ] {
            let connection = try server.connect()
            try connection.send(garbage)
            if let reply = try? connection.readReply() {
                #expect(reply.status >= 400, "\(garbage.debugDescription) → \(reply.status)")
            }
            connection.close()
        }
        let binary = try server.connect()
        try binary.send((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        binary.close()
        try Self.stillServes(server)
    }

    @Test func hugeHeadersAreRefusedByTheMemoryLimit() throws {
        let server = try ServeProcess()
        let connection = try server.connect()
        let field = "X-Big: " + String(repeating: "a", count: 200_000) + "\r\n"
        try? connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n" + field + "\r\n")
        if let reply = try? connection.readReply() {
            #expect(reply.status == 431 || reply.status == 413 || reply.status == 400, "\(reply.status)")
        }
        connection.close()
        let many = try server.connect()
        var head = "GET /healthz HTTP/1.1\r\nHost: x\r\n"
        for index in 0..<5000 { head += "X-\(index): v\r\n" }
        try? many.send(head + "\r\n")
        if let reply = try? many.readReply() { #expect(reply.status >= 400) }
        try Self.stillServes(server)
    }

    @Test func slowLorisAndManyIdleConnectionsDoNotStopOthers() throws {
        let server = try ServeProcess(["--max-connections-per-ip", "0"])
        // Clients that send half a request and then nothing.
        var lingering: [HTTPConnection] = []
        for index in 0..<200 {
            let connection = try server.connect()
            try connection.send(
                index.isMultiple(of: 2) ? "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " : "POST /api/v1/posters/1/votes HTTP/1.1\r\n")
            lingering.append(connection)
        }
        // And many that connect and say nothing at all.
        for _ in 0..<1500 { lingering.append(try server.connect()) }
        for _ in 0..<20 { try Self.stillServes(server) }
        // A keep-alive client goes on being served on one connection.
        let keepAlive = try server.connect()
        for _ in 0..<50 { #expect(try keepAlive.request("GET", "/api/v1/posters").status == 200) }
        for connection in lingering { connection.close() }
        try Self.stillServes(server)
    }

    @Test func connectionsPerAddressAreLimited() throws {
        let server = try ServeProcess(["--max-connections-per-ip", "4"])
        let held = try (0..<4).map { _ in try server.connect() }
        for connection in held { #expect(try connection.request("GET", "/healthz").status == 200) }
        let extra = try server.connect()
        try? extra.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect((try? extra.readReply()) == nil, "a fifth connection from one address is closed unanswered")
        for connection in held { connection.close() }
        usleep(200_000)
        try Self.stillServes(server)
    }

    @Test func anIdleConnectionIsNotKeptForeverAndStoppingClosesIdleOnes() throws {
        let server = try ServeProcess()
        let idle = try server.connect()
        #expect(try idle.request("GET", "/healthz").status == 200)
        let (status, _) = server.stop()
        #expect(status == 0)
        #expect(idle.isClosedByServer())
    }
}

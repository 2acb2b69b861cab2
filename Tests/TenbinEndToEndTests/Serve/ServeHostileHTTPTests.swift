import Foundation
import TestProcesses
import Testing

extension ServeEndToEndTests {
    /// Malformed and hostile HTTP against a real server: after each, the server still answers
    /// other clients and the store passes `tenbin check`.
    @Suite(.timeLimit(.minutes(10))) struct ServeHostileHTTPTests {
        static func stillServes(_ server: ServeProcess) throws {
            let reply = try server.request("GET", "/healthz")
            #expect(reply.status == 200)
            #expect(try Tenbin.run(["check"], store: server.store).status == 0)
        }

        @Test func garbageRequestLinesAreRefused() throws {
            let server = try ServeProcess()
            for garbage in [
                "GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n", "\u{1}\u{2}\u{3} / HTTP/1.1\r\n\r\n",
                "GET /%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "GET / HTTP/1.1\r\nBad Header Without Colon\r\n\r\n",
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
            try? connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + field + "\r\n")
            if let reply = try? connection.readReply() {
                #expect(reply.status == 431 || reply.status == 413 || reply.status == 400, "\(reply.status)")
            }
            connection.close()
            let many = try server.connect()
            var head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for index in 0..<5000 { head += "X-\(index): v\r\n" }
            try? many.send(head + "\r\n")
            if let reply = try? many.readReply() { #expect(reply.status >= 400) }
            try Self.stillServes(server)
        }

        @Test func slowLorisAndManyIdleConnectionsDoNotStopOthers() throws {
            let server = try ServeProcess(["--max-connections-per-ip", "0"])
            // The idle clients live in a process of their own: thousands of descriptors open in
            // the test runner would reach every other test (Foundation's Process.run walks them,
            // and under AddressSanitizer overflows a buffer doing so).
            let holder = try IdleClients(port: server.port, slow: 200, silent: 1500)
            defer { holder.release() }
            for _ in 0..<20 { try Self.stillServes(server) }
            // A keep-alive client goes on being served on one connection.
            let keepAlive = try server.connect()
            for _ in 0..<50 { #expect(try keepAlive.request("GET", "/api/v1/posters").status == 200) }
            holder.release()
            try Self.stillServes(server)
        }

        @Test func connectionsPerAddressAreLimited() throws {
            let server = try ServeProcess(["--max-connections-per-ip", "4"])
            // From an address of its own: any other connection from 127.0.0.1 that reached this
            // port (one of the suite's clients still retrying a port this server now has) would
            // count against the same four (one of the first four was once refused, ECONNRESET).
            let address = "127.0.0.2"
            let held = try (0..<4).map { _ in try server.connect(from: address) }
            for connection in held { #expect(try connection.request("GET", "/healthz").status == 200) }
            let extra = try server.connect(from: address)
            try? extra.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect((try? extra.readReply()) == nil, "a fifth connection from one address is closed unanswered")
            // Another address is not limited by this one's connections.
            #expect(try server.request("GET", "/healthz").status == 200)
            for connection in held { connection.close() }
            // The server counts a connection gone once it has seen it close, which a loaded
            // machine (a sanitizer build) may take longer than a fixed pause to do.
            _ = try poll("the address's connections to be free again", seen: { "no answer" }) {
                try? server.connect(from: address).request("GET", "/healthz").status == 200 ? true : nil
            }
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
}

/// Clients that connect to a port and then say half a request (`slow`) or nothing
/// (`silent`), held open by a python3 process until released.
final class IdleClients {
    private let process = Process()
    private let input = Pipe()

    init(port: UInt16, slow: Int, silent: Int) throws {
        let script = """
            import socket, sys
            held = []
            for i in range(\(slow + silent)):
                s = socket.create_connection(("127.0.0.1", \(port)))
                if i < \(slow):
                    s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Slow: " if i % 2 == 0 else b"POST /api/v1/posters/1/votes HTTP/1.1\\r\\n")
                held.append(s)
            print("ready", flush=True)
            sys.stdin.read()
            """
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        process.standardInput = input
        process.standardOutput = output
        try process.start()
        let ready = output.fileHandleForReading.nextChunk()
        guard String(decoding: ready, as: UTF8.self).hasPrefix("ready") else {
            process.terminate()
            throw IdleClientsError(description: "the idle clients could not connect: \(String(decoding: ready, as: UTF8.self))")
        }
    }

    /// Closes every held connection (the process ends); safe to call twice.
    func release() {
        try? input.fileHandleForWriting.close()
        process.waitForExit()
    }

    struct IdleClientsError: Error, CustomStringConvertible {
        let description: String
    }
}

import Foundation
import TenbinKit
import TenbinPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// `rolling`: a rolling restart of two `tenbin serve` on one PostgreSQL database behind nginx
/// configured with docs/postgres.md's block, under steady votes, as docs/operations.md tells an
/// operator to do it: SIGTERM one server, start it again, wait until nginx sends it requests
/// again, then the other. Reports what the voting clients saw (requests answered, 5xx) and, per
/// server, how long the drain and the restart took (from starting the new process to its first
/// 200 on `/readyz`). Needs the server `make bench` starts (TENBIN_TEST_DATABASE_URL).
enum RollingBenchmark {
    static let voters = 8
    /// Seconds of votes before the first restart and after the last.
    static let steadySeconds = 3.0

    static func run(_ context: BenchContext) throws {
        guard let server = PostgresBenchmark.testServer() else { return }
        let url = try PostgresBenchmark.freshDatabase(server, name: "tenbin_bench_rolling")
        let store = try PostgresStore(url: url, poolSize: 1)
        let ids = try PostgresBenchmark.insertPosters(store, count: 100)
        let folder = try context.freshFolder("rolling")
        let blobs = folder + "/blobs-shared"
        let ports = [try LoopbackHTTP.freePort(), try LoopbackHTTP.freePort()]
        func start(_ port: UInt16) throws -> Child {
            try Child([
                context.tenbin, "--store", blobs, "serve", "--database", url, "--listen", "127.0.0.1:\(port)", "--no-rate-limit",
                "--trust-proxy",
            ])
        }
        var servers = try ports.map { try start($0) }
        for port in ports { _ = try readyAfter(port: port) }
        let balancer = try Nginx.balancing(folder: folder, servers: ports)
        defer { balancer.stop() }
        let load = VoteLoad(port: balancer.port, posters: ids, voters: voters)
        defer { load.stop() }
        let began = DispatchTime.now().uptimeNanoseconds
        Thread.sleep(forTimeInterval: steadySeconds)
        var restarts = Table("server", "drain (SIGTERM to exit)", "exit status", "restart to ready", "back in nginx's rotation")
        for (index, port) in ports.enumerated() {
            let signalled = DispatchTime.now().uptimeNanoseconds
            let status = servers[index].stop(signal: SIGTERM)
            let drained = seconds(since: signalled)
            let spawned = DispatchTime.now().uptimeNanoseconds
            servers[index] = try start(port)
            let ready = try readyAfter(port: port)
            let readySeconds = Double(ready - spawned) / 1e9
            // As docs/operations.md says: the next server is stopped only once nginx sends this
            // one requests again (its own count of committed votes moves).
            let deadline = Date().addingTimeInterval(30)
            while (try? committed(port: port)) ?? 0 == 0 {
                guard Date() < deadline else { throw BenchError("nginx sent no vote to the restarted server within 30 s") }
                usleep(10_000)
            }
            restarts.add(
                "\(index == 0 ? "A" : "B") (127.0.0.1:\(port))", Format.ms(drained), "\(status)", Format.ms(readySeconds),
                Format.ms(seconds(since: spawned)))
        }
        Thread.sleep(forTimeInterval: steadySeconds)
        let outcome = load.stop()
        let elapsed = seconds(since: began)
        for server in servers { _ = server.stop(signal: SIGTERM) }
        let counted = try store.read { try $0.posters(ids: ids) }.reduce(0) { $0 + $1.totalVotes }
        var clients = Table(
            "rolling restart, \(voters) keep-alive voters through nginx", "requests answered", "2xx", "5xx", "other", "connection errors",
            "votes/s", "2xx counted")
        clients.add(
            "2 servers, one PostgreSQL, \(String(format: "%.1f", elapsed)) s", outcome.answered.formatted(), outcome.ok.formatted(),
            outcome.serverErrors.formatted(), (outcome.answered - outcome.ok - outcome.serverErrors).formatted(),
            outcome.connectionErrors.formatted(), Format.number(Double(outcome.answered) / elapsed, digits: 0),
            counted == outcome.ok ? "all, exactly" : "\(counted) counted for \(outcome.ok) answered")
        clients.print()
        print("")
        restarts.print()
        print(
            """

            Two release `tenbin serve --no-rate-limit --trust-proxy` on one PostgreSQL database and one
            blob folder, behind Debian's nginx running docs/postgres.md's block; \(voters) threads of this
            process vote through nginx on keep-alive connections, as fast as they are answered. After
            \(Int(steadySeconds)) s each server in turn gets SIGTERM and is started again on its port; the next
            is stopped once nginx sends the restarted one votes again. "restart to ready": from
            starting the new process to its first 200 on /readyz (asked every 5 ms on its own port);
            "back in nginx's rotation": from starting it to its first committed vote. Goal: 0 5xx.
            """)
    }

    static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Asks `/readyz` on `port` every 5 ms until it answers 200 (at most 60 s); the time of
    /// that answer.
    static func readyAfter(port: UInt16) throws -> UInt64 {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let answer = try? LoopbackHTTP.get(port: port, "/readyz"), answer.status == 200 {
                return DispatchTime.now().uptimeNanoseconds
            }
            usleep(5_000)
        }
        throw BenchError("127.0.0.1:\(port) was not ready within 60 s")
    }

    /// `tenbin_votes_committed_total` of the server on `port` (its `/metrics`, asked directly
    /// over loopback).
    static func committed(port: UInt16) throws -> Int {
        let text = String(decoding: try LoopbackHTTP.get(port: port, "/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("tenbin_votes_committed_total ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }
}

/// Votes on keep-alive connections from threads of their own until stopped, counting every
/// answer by its status.
final class VoteLoad: Sendable {
    struct Outcome: Sendable {
        var answered = 0
        var ok = 0
        var serverErrors = 0
        /// Connections that failed or closed before an answer (the client opens another).
        var connectionErrors = 0
    }

    private let outcome = Locked(Outcome())
    private let stopping = Locked(false)
    private let finished = DispatchGroup()

    init(port: UInt16, posters: [Int64], voters: Int) {
        for index in 0..<voters {
            finished.enter()
            Thread { [self] in
                defer { finished.leave() }
                var socket: Int32 = -1
                var count = index
                while !stopping.withLock({ $0 }) {
                    if socket < 0 { socket = LoopbackHTTP.connect(port: port) }
                    count += 1
                    let id = posters[count % posters.count]
                    let body = "{\"side\": \(count % 2 + 1)}"
                    let answer =
                        socket < 0
                        ? nil
                        : try? Self.exchange(
                            socket,
                            "POST /api/v1/posters/\(id)/votes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
                    let status = answer?.status
                    outcome.withLock { outcome in
                        guard let status else {
                            outcome.connectionErrors += 1
                            return
                        }
                        outcome.answered += 1
                        if (200..<300).contains(status) { outcome.ok += 1 }
                        if status >= 500 { outcome.serverErrors += 1 }
                    }
                    // nginx closes a client's connection after 1,000 requests (its
                    // keepalive_requests), saying so: a client opens another.
                    if answer?.closes ?? true, socket >= 0 {
                        close(socket)
                        socket = -1
                    }
                    if answer == nil { usleep(1_000) }  // nothing listens: do not spin
                }
                if socket >= 0 { close(socket) }
            }.start()
        }
    }

    /// Stops the voters and waits for them; what they saw.
    @discardableResult
    func stop() -> Outcome {
        stopping.withLock { $0 = true }
        finished.wait()
        return outcome.withLock { $0 }
    }

    /// Sends `request` and reads one answer with a `Content-Length` body; its status, and
    /// whether it closes the connection (`Connection: close`).
    private static func exchange(_ socket: Int32, _ request: String) throws -> (status: Int, closes: Bool) {
        try LoopbackHTTP.send(socket, request)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        var head: (status: Int, end: Int, length: Int, closes: Bool)?
        while true {
            if head == nil, let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let text = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                let length =
                    text.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                let closes = text.split(separator: "\r\n").contains { $0.hasPrefix("connection:") && $0.hasSuffix("close") }
                head = (status, end.upperBound, length, closes)
            }
            if let head, received.count >= head.end + head.length { return (head.status, head.closes) }
            let count = read(socket, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError("the connection closed before an answer") }
            received += buffer[..<count]
        }
    }
}

extension Nginx {
    /// nginx on a free loopback port in front of `servers`, configured with the block
    /// docs/postgres.md documents (its upstream addresses and `listen` line replaced).
    static func balancing(folder: String, servers: [UInt16]) throws -> Nginx {
        let port = try LoopbackHTTP.freePort()
        var block = try documentedBlock()
        for (documented, measured) in [
            ("server app1.internal:8080", "server 127.0.0.1:\(servers[0])"),
            ("server app2.internal:8080", "server 127.0.0.1:\(servers[1])"), ("listen 80;", "listen 127.0.0.1:\(port);"),
        ] {
            guard block.contains(documented) else { throw BenchError("docs/postgres.md's nginx block has no \(documented)") }
            block = block.replacingOccurrences(of: documented, with: measured)
        }
        return try Nginx(folder: folder, port: port, workers: 1, http: block)
    }

    /// The ```nginx block of docs/postgres.md's "Two servers behind nginx" section.
    static func documentedBlock() throws -> String {
        var root = #filePath
        for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.endIndex)]) }
        let page = try String(contentsOfFile: root + "/docs/postgres.md", encoding: .utf8)
        guard let section = page.range(of: "## Two servers behind nginx"),
            let fence = page.range(of: "```nginx\n", range: section.upperBound..<page.endIndex),
            let end = page.range(of: "\n```", range: fence.upperBound..<page.endIndex)
        else { throw BenchError("docs/postgres.md lost its nginx block") }
        return String(page[fence.upperBound..<end.lowerBound])
    }
}

import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// `GET /metrics` in process: refused posts counted by reason wherever they were refused, the
/// build's version, the process's own statistics, and the metrics address of
/// `--metrics-listen` (the same route table, without the loopback rule).
@Suite struct MetricsTests {
    typealias Part = (name: String, bytes: [UInt8], filename: String?)

    /// The value of the sample `series` (a name with its labels), nil when absent.
    static func sample(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    static func hostile(_ name: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: TestServer.root + "/Tests/Fixtures/hostile/" + name)))
    }

    @Test func refusedPostsAreCountedByReasonWhoeverRefusedThem() async throws {
        // Four posts may be tried; the fifth is over the rate.
        let server = try TestServer { $0.postRate = Rate(perSecond: 0.0001, burst: 4) }
        let cat: Part = ("image1", TestServer.cat, "cat.jpg")
        func send(_ parts: [Part]) async -> Int {
            await server.request("POST", "/api/v1/posters", body: .form(parts)).status
        }
        // The router's same-origin check: before any budget is spent.
        #expect(await server.post(headers: [("Origin", "http://elsewhere.example")]).status == 403)
        // The handler's form check, then the image pipeline's two kinds of refusal.
        #expect(await send([cat]) == 400)
        #expect(await send([cat, ("image2", try Self.hostile("text-named.jpg"), "text.jpg")]) == 422)
        #expect(await send([cat, ("image2", try Self.hostile("huge-30000x30000.png"), "huge.png")]) == 413)
        #expect(await server.post().status == 201)
        // The router's rate check.
        #expect(await server.post().status == 429)
        let metrics = await server.request("GET", "/metrics").text
        let expected: [String: Double] = [
            "forbidden": 1, "invalid_form": 1, "invalid_image": 1, "too_large": 1, "rate_limited": 1, "busy": 0, "unavailable": 0,
            "failed": 0,
        ]
        for (reason, count) in expected {
            #expect(Self.sample(metrics, "tenbin_posts_refused_total{reason=\"\(reason)\"}") == count, "\(reason): \(metrics)")
        }
        #expect(Self.sample(metrics, "tenbin_posters_created_total") == 1)
        // A refused vote is no refused post.
        #expect(await server.vote(1, side: 3).status == 422)
        let after = await server.request("GET", "/metrics").text
        #expect(Self.sample(after, "tenbin_posts_refused_total{reason=\"invalid_form\"}") == 1)
    }

    @Test func aPostRefusedBecauseTheServerIsBusyIsCountedAsBusy() async throws {
        let server = try TestServer {
            $0.rateLimited = false
            $0.maximumPostsInProgress = 0
        }
        let reply = await server.post()
        #expect(reply.status == 503)
        let metrics = await server.request("GET", "/metrics").text
        #expect(Self.sample(metrics, "tenbin_posts_refused_total{reason=\"busy\"}") == 1, "\(metrics)")
        #expect(Self.sample(metrics, "tenbin_posts_refused_total{reason=\"unavailable\"}") == 0)
    }

    @Test func metricsNameTheVersionTenbinPrintsAndTheProcesssOwnStatistics() async throws {
        let server = try TestServer()
        // Descriptors held open while the metrics are read, and closed before the next read.
        var pipes: [Int32] = []
        for _ in 0..<100 {
            var pair: [Int32] = [0, 0]
            #expect(pipe(&pair) == 0)
            pipes += pair
        }
        let holding = await server.request("GET", "/metrics").text
        for descriptor in pipes { close(descriptor) }
        let released = await server.request("GET", "/metrics").text

        #expect(holding.contains("tenbin_build_info{version=\"\(TenbinVersion.current)\"} 1\n"), "\(holding)")
        let now = Date().timeIntervalSince1970
        let start = try #require(Self.sample(holding, "process_start_time_seconds"), "\(holding)")
        // This test process started before this test, and today.
        #expect(start <= now && start > now - 86_400, "start \(start), now \(now)")
        #expect(Self.sample(released, "process_start_time_seconds") == start)
        let resident = try #require(Self.sample(holding, "process_resident_memory_bytes"))
        let kernel = try Self.residentFromStatus()
        #expect(resident > kernel / 2 && resident < kernel * 2, "metrics \(resident), /proc/self/status \(kernel)")
        // Other tests open and close descriptors meanwhile: the 200 closed must still show.
        let before = try #require(Self.sample(holding, "process_open_fds"))
        let after = try #require(Self.sample(released, "process_open_fds"))
        #expect(before - after >= 150, "holding \(before), released \(after)")
    }

    /// VmRSS of /proc/self/status, in bytes.
    static func residentFromStatus() throws -> Double {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Double(line.split(separator: " ").dropFirst().first ?? ""))
        return kilobytes * 1024
    }

    @Test func withAMetricsAddressTheMainOneAnswers404AndTheMetricsOneAnswersAnyone() async throws {
        let server = try TestServer(peer: "192.0.2.7") { $0.metricsListen = "127.0.0.1:0" }
        try server.board.checkBlobFolder(creating: true)  // as `tenbin serve` makes it
        // The main address: no metrics, for anyone, loopback included.
        #expect(await server.request("GET", "/metrics").status == 404)
        #expect(await server.request("GET", "/metrics", peer: "127.0.0.1").status == 404)
        #expect(await server.request("GET", "/healthz").status == 200)
        // The metrics address: the operator chose who reaches it, proxied or not.
        let metrics = await server.request("GET", "/metrics", monitoring: true)
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("tenbin_http_requests_total{route=\"GET /healthz\",status=\"200\"} 1"), "\(metrics.text)")
        let proxied = await server.request("GET", "/metrics", headers: [("X-Forwarded-For", "203.0.113.9")], monitoring: true)
        #expect(proxied.status == 200)
        #expect(await server.request("GET", "/healthz", monitoring: true).status == 200)
        #expect(await server.request("GET", "/readyz", monitoring: true).status == 200)
        // Nothing else is there.
        for target in ["/", "/api/v1/posters", "/static/app.js"] {
            #expect(await server.request("GET", target, monitoring: true).status == 404, "\(target)")
        }
        #expect(await server.request("POST", "/api/v1/posters", body: .form([]), monitoring: true).status == 404)
    }

    @Test func withoutAMetricsAddressMetricsStayOnTheMainAddressForLoopbackOnly() async throws {
        let server = try TestServer()
        #expect(server.app.mainRoutes.contains { $0.label == "GET /metrics" && $0.policy.loopbackOnly })
        #expect(await server.request("GET", "/metrics").status == 200)
        #expect(await server.request("GET", "/metrics", peer: "192.0.2.7").status == 404)
    }
}

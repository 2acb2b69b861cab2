import Foundation
import TenbinKit
import TestProcesses
import Testing

extension MultiServerTests {
    /// nginx in front of both servers, configured as docs/postgres.md says: posts, votes and live
    /// feeds pass through it, votes are spread over both servers, and it fails over when one dies.
    @Suite(.timeLimit(.minutes(10))) struct MultiServerNginxTests {
        typealias Feed = ServeEndToEndTests.ServeFeedTests

        @Test func theDocumentedBlockKeepsMetricsOffThePublicAddress() throws {
            let servers = try TwoServers(["--trust-proxy"])
            let nginx = try LoadBalancer([servers.a.port, servers.b.port])
            #expect(try nginx.request("GET", "/healthz").status == 200)
            let metrics = try nginx.request("GET", "/metrics")
            #expect(metrics.status == 404)
            #expect(!metrics.text.contains("tenbin_"), "\(metrics.text)")
            // nginx answered itself: neither server was asked (each counts its own 404s).
            #expect(metrics.headers["content-type"]?.hasPrefix("text/html") == true, "\(metrics.headers)")
            for server in servers.servers {
                let own = try server.request("GET", "/metrics").text
                #expect(!own.contains("route=\"GET /metrics\",status=\"404\""), "\(own)")
            }
        }

        @Test func nginxBalancesVotesAndFeedsOverBothServersAndFailsOver() throws {
            // Rate limits stay on (high), keyed by the address nginx forwards; heartbeats rarer
            // than a read's 30 s time-out, so an event that never comes fails the test.
            let servers = try TwoServers(["--trust-proxy", "--vote-rate", "1000/1000", "--heartbeat", "120"])
            let nginx = try LoadBalancer([servers.a.port, servers.b.port])
            let sameSite = ("Origin", "http://127.0.0.1:\(nginx.port)")

            // A poster posted through nginx, as a browser on the board's page would.
            var form = Multipart()
            try form.file("image1", path: ServeEndToEndTests.ServeAPITests.cat)
            try form.file("image2", path: ServeEndToEndTests.ServeAPITests.dog)
            form.field("contents", "through nginx")
            let created = try nginx.request(
                "POST", "/api/v1/posters", headers: [("Content-Type", form.contentType), sameSite], body: form.body)
            #expect(created.status == 201, "\(created.text) \(nginx.errorLog)")

            // A live feed through nginx: its events arrive unbuffered.
            let feed = try nginx.connect()
            try feed.send("GET /api/v1/feed?limit=10 HTTP/1.1\r\nHost: 127.0.0.1:\(nginx.port)\r\n\r\n")
            let head = try feed.read(until: "\r\n\r\n")
            #expect(head.hasPrefix("HTTP/1.1 200") && head.contains("text/event-stream"), "\(head)")
            let snapshot = try Feed.nextEvent(feed)
            #expect(snapshot.name == "snapshot" && snapshot.data.contains("through nginx"), "\(snapshot)")

            // Votes on one keep-alive connection to nginx, which spreads them over both servers.
            let client = try nginx.connect()
            let votes = 30
            for _ in 0..<votes {
                let reply = try client.vote(1, side: 1, headers: [sameSite])
                #expect(reply.status == 200, "\(reply.text)")
            }
            let crossSite = try client.vote(1, side: 2, headers: [("Origin", "http://evil.example")])
            #expect(crossSite.status == 403, "the same-origin rule holds behind the proxy")
            var last = snapshot
            for _ in 0..<votes where !last.data.contains("\"good1\": \(votes), \"good2\": 0") {
                last = try Feed.nextEvent(feed)
                #expect(last.name == "modified", "\(last)")
            }
            #expect(last.data.contains("\"good1\": \(votes), \"good2\": 0"), "\(last)")
            for server in servers.servers {
                #expect(server.stderr.contains("POST /api/v1/posters/1/votes 200"), "both servers answered votes")
            }
            #expect(try servers.database.counts()[1] == Tally(good1: votes, good2: 0))

            // One server killed between votes: nginx sends what it cannot deliver to the other.
            // A vote answered 502 went nowhere (its server was already dead), so the count is
            // exactly the votes answered 200.
            kill(servers.a.process.processIdentifier, SIGKILL)
            servers.a.process.waitForExit()
            var statuses: [Int] = []
            for _ in 0..<20 { statuses.append(try client.vote(1, side: 2, headers: [sameSite]).status) }
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 502 }, "\(statuses)")
            #expect(statuses.suffix(10).allSatisfy { $0 == 200 }, "\(statuses)")
            let answered = statuses.filter { $0 == 200 }.count
            #expect(try servers.database.counts()[1] == Tally(good1: votes, good2: answered))
            let poster = try nginx.request("GET", "/api/v1/posters/1")
            #expect(poster.json["good2"] as? Int == answered)
        }
    }
}

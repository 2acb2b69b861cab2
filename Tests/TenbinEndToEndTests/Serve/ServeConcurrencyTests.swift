import Foundation
import TenbinKit
import Testing

/// Votes from many connections at once are counted exactly.
@Suite(.timeLimit(.minutes(3))) struct ServeConcurrencyTests {
    @Test func concurrentVotesOverManyKeepAliveConnectionsAreCountedExactly() throws {
        let server = try ServeProcess(["--no-rate-limit"])
        try ServeAPITests.post(server)
        let connections = 32
        let votesEach = 40
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: connections) { index in
            do {
                let connection = try server.connect()
                for vote in 0..<votesEach {
                    let side = (index + vote).isMultiple(of: 2) ? 1 : 2
                    let reply = try connection.request(
                        "POST", "/api/v1/posters/1/votes", headers: [("Content-Type", "application/json")],
                        body: Array("{\"side\": \(side)}".utf8))
                    if reply.status != 200 { failures.withLock { $0 += 1 } }
                }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let poster = try server.request("GET", "/api/v1/posters/1").json
        #expect(poster["good1"] as? Int == connections * votesEach / 2)
        #expect(poster["good2"] as? Int == connections * votesEach / 2)
        let show = try Tenbin.run(["show", "1", "--json"], store: server.store)
        #expect(show.stdout.contains("\"good1\": \(connections * votesEach / 2)"))
        #expect(try server.request("GET", "/metrics").text.contains("tenbin_votes_committed_total \(connections * votesEach)"))
    }
}

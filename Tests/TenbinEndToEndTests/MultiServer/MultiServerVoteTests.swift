import Foundation
import TenbinKit
import Testing

extension MultiServerTests {
    /// Votes from many clients spread over two servers on one database are counted exactly.
    @Suite(.timeLimit(.minutes(10))) struct MultiServerVoteTests {
        @Test func eightClientsVotingAcrossTwoServersAreCountedExactly() throws {
            let servers = try TwoServers()
            // Posters posted on either server share one sequence of ids.
            let first = try ServeEndToEndTests.ServeAPITests.post(servers.a, contents: "posted on A")
            let second = try ServeEndToEndTests.ServeAPITests.post(servers.b, contents: "posted on B")
            let third = try ServeEndToEndTests.ServeAPITests.post(servers.a, contents: "posted on A again")
            let ids = [first, second, third].compactMap { $0["id"] as? Int }
            #expect(ids == [1, 2, 3])

            // 8 clients, each with one keep-alive connection to each server, alternating between
            // them, over three posters, both sides, 1 to 3 votes a request.
            let clients = 8
            let requestsEach = 500
            let answered = Locked([Int: Tally]())
            let answeredBy = Locked([0, 0])
            let failures = Locked([String]())
            let (a, b) = (servers.a, servers.b)
            onThreads(clients) { client in
                var tallies: [Int: Tally] = [:]
                var served = [0, 0]
                do {
                    let connections = [try a.connect(), try b.connect()]
                    for request in 0..<requestsEach {
                        let which = (client + request) % 2
                        let id = ids[(client * 7 + request) % ids.count]
                        let side = (request / 2) % 2 + 1
                        let times = request % 3 + 1
                        let reply = try connections[which].vote(id, side: side, times: times)
                        guard reply.status / 100 == 2 else {
                            failures.withLock { $0.append("\(reply.status) \(reply.text)") }
                            continue
                        }
                        tallies[id, default: Tally()].add(side: side, times: times)
                        served[which] += times
                    }
                } catch {
                    failures.withLock { $0.append("client \(client): \(error)") }
                }
                answered.withLock { total in
                    for (id, tally) in tallies {
                        total[id, default: Tally()].good1 += tally.good1
                        total[id, default: Tally()].good2 += tally.good2
                    }
                }
                answeredBy.withLock { $0 = [$0[0] + served[0], $0[1] + served[1]] }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(5))")
            let expected = answered.withLock { $0 }
            let totalVotes = expected.values.reduce(0) { $0 + $1.good1 + $1.good2 }
            #expect(totalVotes == clients * (0..<requestsEach).reduce(0) { $0 + $1 % 3 + 1 }, "every request answered 2xx")

            // The database holds exactly the votes answered 2xx, and both servers say so.
            #expect(try servers.database.counts() == expected)
            for server in servers.servers {
                for id in ids {
                    let poster = try server.request("GET", "/api/v1/posters/\(id)").json
                    #expect(Tally(good1: poster["good1"] as? Int ?? -1, good2: poster["good2"] as? Int ?? -1) == expected[id])
                }
            }
            // Each server counted the votes it answered.
            let byServer = answeredBy.withLock { $0 }
            #expect(try servers.a.metric("tenbin_votes_committed_total") == byServer[0])
            #expect(try servers.b.metric("tenbin_votes_committed_total") == byServer[1])
            let check = try servers.check()
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}

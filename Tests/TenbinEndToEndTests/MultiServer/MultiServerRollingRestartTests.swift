import Foundation
import TenbinKit
import Testing

extension MultiServerTests {
    /// A rolling restart behind nginx, configured as docs/postgres.md says: one server drained
    /// with SIGTERM and started again, then the other, while clients vote through nginx.
    @Suite(.timeLimit(.minutes(10))) struct MultiServerRollingRestartTests {
        @Test func aRollingRestartUnderSteadyVotesGivesClientsNoServerErrorAndCountsEveryAnsweredVote() throws {
            let arguments = ["--no-rate-limit", "--trust-proxy"]
            let servers = try TwoServers(arguments)
            try ServeEndToEndTests.ServeAPITests.post(servers.a)
            let nginx = try LoadBalancer([servers.a.port, servers.b.port])
            let port = nginx.port
            struct Outcome {
                var answered = Tally()
                var statuses: [Int: Int] = [:]
            }
            let outcome = Locked(Outcome())
            let stopping = Locked(false)
            let voters = startThreads(8) { index in
                var connection = try? HTTPConnection(port: port)
                var vote = 0
                while !stopping.withLock({ $0 }) {
                    let side = (index + vote).isMultiple(of: 2) ? 1 : 2
                    vote += 1
                    guard let open = connection, let reply = try? open.vote(1, side: side) else {
                        connection = try? HTTPConnection(port: port)  // nginx closed it: a client reconnects
                        continue
                    }
                    outcome.withLock { outcome in
                        outcome.statuses[reply.status, default: 0] += 1
                        if reply.status == 200 { outcome.answered.add(side: side, times: 1) }
                    }
                }
            }
            func answered() -> Int { outcome.withLock { $0.answered.good1 + $0.answered.good2 } }
            func votesFlow() throws {
                let before = answered()
                _ = try poll("votes to flow through nginx", seen: { "\(outcome.withLock { $0.statuses })" }) {
                    answered() >= before + 200 ? true : nil
                }
            }
            try votesFlow()
            var restarted: [ServeProcess] = []
            for old in servers.servers {
                let (status, stderr) = old.stop()
                #expect(status == 0, "\(stderr)")
                try votesFlow()  // the other server carries them alone
                let fresh = try ServeProcess(
                    ["--database", servers.database.url] + arguments, store: servers.store, listen: "127.0.0.1:\(old.port)")
                restarted.append(fresh)
                // The next server is stopped only once nginx sends votes to this one again (it
                // marked the port failed when it refused connections, for `fail_timeout`):
                // otherwise both would be out of nginx's rotation at once.
                _ = try poll("nginx to send votes to the restarted server", seen: { "\(outcome.withLock { $0.statuses })" }) {
                    (try? fresh.metric("tenbin_votes_committed_total")).flatMap { $0 } ?? 0 > 0 ? true : nil
                }
            }
            stopping.withLock { $0 = true }
            voters.wait()
            let result = outcome.withLock { $0 }
            #expect(result.statuses.keys.allSatisfy { $0 < 500 }, "\(result.statuses)\n\(nginx.errorLog)")
            let counts = try servers.database.counts()
            #expect(counts[1] == result.answered, "\(result.statuses)")
            for server in restarted { #expect(server.stop().status == 0) }
        }
    }
}

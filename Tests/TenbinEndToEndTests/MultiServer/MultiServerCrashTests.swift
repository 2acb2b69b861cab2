import Foundation
import TenbinKit
import Testing

extension MultiServerTests {
    /// One server killed with SIGKILL while its vote batches are in flight: no vote answered 2xx
    /// is lost, none is counted twice, and the other server keeps serving.
    @Suite(.timeLimit(.minutes(10))) struct MultiServerCrashTests {
        /// What the voting threads have seen, kept under one lock so the test can read a
        /// consistent picture at the instant of the kill.
        struct Votes {
            /// Votes answered 2xx, by server (A votes for side 1, B for side 2).
            var answered = [0, 0]
            /// Requests sent to A whose answer has not been read yet.
            var inFlightOnA = 0
            /// Votes in those requests.
            var inFlightVotesOnA = 0
            /// Requests to A (and their votes) that never got an answer: A died first.
            var unansweredOnA = 0
            var unansweredVotesOnA = 0
            /// Votes B answered 2xx after A was killed.
            var answeredByBAfterKill = 0
            var killed = false
            var stopB = false
            /// Answers other than 2xx, and errors B's clients saw (none expected).
            var failures: [String] = []
        }

        @Test func killingOneServerMidBatchLosesNoAnsweredVoteAndCountsNoneTwice() throws {
            let servers = try TwoServers()
            try ServeEndToEndTests.ServeAPITests.post(servers.a, contents: "the hot poster")
            let onA = 24
            let onB = 8
            let state = Locked(Votes())
            let a = servers.a
            let b = servers.b

            // A's clients vote for side 1 until A dies under them; B's for side 2 until told to
            // stop. Every client is one keep-alive connection voting back to back, 1 to 3 votes a
            // request, all on one poster: each server groups them into batches.
            let clientsOnA = startThreads(onA) { client in
                guard let connection = try? a.connect() else {
                    state.withLock { $0.failures.append("client \(client) could not connect to A") }
                    return
                }
                for request in 0... {
                    let times = (client + request) % 3 + 1
                    state.withLock {
                        $0.inFlightOnA += 1
                        $0.inFlightVotesOnA += times
                    }
                    let reply = try? connection.vote(1, side: 1, times: times)
                    let stop = state.withLock { state -> Bool in
                        state.inFlightOnA -= 1
                        state.inFlightVotesOnA -= times
                        guard let reply else {
                            state.unansweredOnA += 1
                            state.unansweredVotesOnA += times
                            if !state.killed { state.failures.append("A's connection \(client) failed before the kill") }
                            return true
                        }
                        if reply.status / 100 == 2 {
                            state.answered[0] += times
                        } else {
                            state.failures.append("A answered \(reply.status) \(reply.text)")
                        }
                        return false
                    }
                    if stop { return }
                }
            }
            let clientsOnB = startThreads(onB) { client in
                do {
                    let connection = try b.connect()
                    for request in 0... {
                        let times = (client + request) % 3 + 1
                        let reply = try connection.vote(1, side: 2, times: times)
                        let stop = state.withLock { state -> Bool in
                            if reply.status / 100 == 2 {
                                state.answered[1] += times
                                if state.killed { state.answeredByBAfterKill += times }
                            } else {
                                state.failures.append("B answered \(reply.status) \(reply.text)")
                            }
                            return state.stopB
                        }
                        if stop { return }
                    }
                } catch {
                    state.withLock { $0.failures.append("B's connection \(client) failed: \(error)") }
                }
            }

            // Once A has answered a few thousand votes, kill it while holding the lock: no
            // client can record an answer meanwhile, so the count of requests without an answer
            // is exact at the instant the signal lands.
            _ = try poll(seconds: 300, "A to answer 3,000 votes", seen: { "\(state.withLock { $0 })" }) {
                state.withLock { $0.answered[0] >= 3000 || !$0.failures.isEmpty } ? true : nil
            }
            let atKill = state.withLock { state -> Votes in
                kill(a.process.processIdentifier, SIGKILL)
                state.killed = true
                return state
            }
            a.process.waitUntilExit()
            clientsOnA.wait()
            // B keeps serving: its clients go on voting after the kill.
            _ = try poll(seconds: 300, "B to answer 1,000 votes after A was killed", seen: { "\(state.withLock { $0 })" }) {
                state.withLock { $0.answeredByBAfterKill >= 1000 || !$0.failures.isEmpty } ? true : nil
            }
            state.withLock { $0.stopB = true }
            clientsOnB.wait()

            let seen = state.withLock { $0 }
            #expect(a.process.terminationReason == .uncaughtSignal && a.process.terminationStatus == SIGKILL)
            #expect(seen.failures.isEmpty, "\(seen.failures.prefix(5))")
            // Evidence that the kill landed mid batch: most of A's connections had a vote sent
            // and not yet answered (a vote is answered only after its batch commits).
            #expect(atKill.inFlightOnA >= onA / 2, "requests in flight on A at the kill: \(atKill.inFlightOnA) of \(onA)")
            #expect(seen.unansweredOnA >= 1 && seen.unansweredOnA <= atKill.inFlightOnA)
            #expect(seen.unansweredVotesOnA <= atKill.inFlightVotesOnA)

            // Every vote answered 2xx is stored; the stored count exceeds the answered one only by
            // votes whose answers the kill swallowed, so none is counted twice.
            let stored = try #require(try servers.database.counts()[1])
            let committedUnanswered = stored.good1 - seen.answered[0]
            #expect(
                committedUnanswered >= 0 && committedUnanswered <= seen.unansweredVotesOnA,
                "stored \(stored.good1) for side 1, answered \(seen.answered[0]), unanswered at the kill \(seen.unansweredVotesOnA)")
            #expect(stored.good2 == seen.answered[1], "B was never killed: its votes are exact")
            #expect(try b.metric("tenbin_votes_committed_total") == seen.answered[1])

            // B still answers reads with the stored counts; a new server started in A's place
            // serves the same board, and the store checks clean.
            let poster = try b.request("GET", "/api/v1/posters/1").json
            #expect(poster["good1"] as? Int == stored.good1 && poster["good2"] as? Int == stored.good2)
            let restarted = try ServeProcess(["--database", servers.database.url, "--no-rate-limit"], store: servers.store)
            let vote = try restarted.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#)
            #expect(vote.status == 200 && vote.json["good1"] as? Int == stored.good1 + 1, "\(vote.text)")
            _ = restarted.stop()
            let check = try servers.check()
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}

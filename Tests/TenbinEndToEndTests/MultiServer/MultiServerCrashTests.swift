import Foundation
import TenbinKit
import TestProcesses
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
            /// Votes in requests to A begun before the kill and never answered: A may have
            /// counted them before it died, or not.
            var unansweredVotesOnA = 0
            /// Requests to A wholly sent before the kill and never answered: they were waiting
            /// for their batch (a vote is answered only after its batch commits).
            var deliveredUnansweredOnA = 0
            /// Requests to A wholly sent and not answered yet (until the kill).
            var inFlightOnA = 0
            /// Votes B answered 2xx after A was killed.
            var answeredByBAfterKill = 0
            var killed = false
            var stopB = false
            /// Answers other than 2xx, and errors B's clients saw (none expected).
            var failures: [String] = []
        }

        /// A's voting clients.
        static let onA = 24

        @Test func killingOneServerMidBatchLosesNoAnsweredVoteAndCountsNoneTwice() throws {
            // The kill must land while A's batches are in flight for the test to prove anything;
            // when it landed between them (seen under ThreadSanitizer, where the clients are slow),
            // the run is repeated on a fresh pair, at most three times. Every run's votes are
            // checked in full.
            var delivered = 0
            for _ in 1...3 {
                delivered = try killOneServerMidBatch()
                if delivered >= Self.onA / 3 { break }
            }
            // Evidence that the kill landed mid batch: most of A's connections had a whole vote
            // request sent before the kill that was never answered.
            #expect(delivered >= Self.onA / 3, "requests delivered to A and unanswered at the kill: \(delivered) of \(Self.onA)")
        }

        /// One run: votes on both servers, A killed mid batch, every answered vote checked;
        /// returns how many of A's requests were wholly sent before the kill and never answered.
        func killOneServerMidBatch() throws -> Int {
            let servers = try TwoServers()
            try ServeEndToEndTests.ServeAPITests.post(servers.a, contents: "the hot poster")
            let onA = Self.onA
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
                    // Begun before the kill (under the lock the kill is sent under): A may see it.
                    let begunBeforeKill = state.withLock { !$0.killed }
                    let body = Array("{\"side\": 1, \"times\": \(times)}".utf8)
                    let head =
                        "POST /api/v1/posters/1/votes HTTP/1.1\r\nHost: 127.0.0.1:\(a.port)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                    var sentBeforeKill = false
                    var reply: HTTPReply?
                    if (try? connection.send(Array(head.utf8) + body)) != nil {
                        // Wholly sent, and A not yet killed when the lock was taken after it.
                        sentBeforeKill = state.withLock { state in
                            if !state.killed { state.inFlightOnA += 1 }
                            return !state.killed
                        }
                        reply = try? connection.readReply(method: "POST")
                    }
                    let stop = state.withLock { state -> Bool in
                        guard let reply else {
                            if begunBeforeKill { state.unansweredVotesOnA += times }
                            if sentBeforeKill { state.deliveredUnansweredOnA += 1 }
                            if !state.killed { state.failures.append("A's connection \(client) failed before the kill") }
                            return true
                        }
                        if sentBeforeKill { state.inFlightOnA -= 1 }
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

            // Once A has answered a few thousand votes, kill it at an instant when half of its
            // clients have a request sent and unanswered (waiting for their batch; under
            // ThreadSanitizer the clients are slow, and a kill at any instant often found most of
            // them between requests), while holding the lock: no client can record an answer
            // meanwhile, so the count of requests without an answer is exact at the instant the
            // signal lands.
            // Past 30 s of waiting for that instant it is killed anyway (the caller then runs
            // again on a fresh pair if too few requests were waiting).
            var enough: Date?
            _ = try poll(seconds: 300, "A to answer 3,000 votes", seen: { "\(state.withLock { $0 })" }) {
                state.withLock { state -> Bool? in
                    if state.failures.isEmpty {
                        guard state.answered[0] >= 3000 else { return nil }
                        if enough == nil { enough = Date() }
                        guard state.inFlightOnA >= onA / 2 || Date().timeIntervalSince(enough!) > 30 else { return nil }
                    }
                    kill(a.process.processIdentifier, SIGKILL)
                    state.killed = true
                    return true
                }
            }
            a.process.waitForExit()
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

            // Every vote answered 2xx is stored; the stored count exceeds the answered one by at
            // most the votes in requests begun before the kill and never answered (those A may
            // have committed as it died), so none is counted twice.
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
            return seen.deliveredUnansweredOnA
        }
    }
}

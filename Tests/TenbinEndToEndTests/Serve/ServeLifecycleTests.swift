import Foundation
import TenbinKit
import Testing

extension ServeDaemonEndToEndTests {
    /// `tenbin serve` through an operator's day: restarts on the same port, a drain on SIGTERM
    /// under votes, log rotation with SIGHUP, slow and oversized request heads, host names.
    @Suite(.timeLimit(.minutes(10))) struct ServeLifecycleTests {
        /// Keep-alive connections that each asked one thing and stay open, as a proxy's pool.
        static func holdConnections(_ server: ServeProcess, count: Int = 8) throws -> [HTTPConnection] {
            try (0..<count).map { _ in
                let connection = try server.connect()
                #expect(try connection.request("GET", "/healthz").status == 200)
                return connection
            }
        }

        @Test func aServerStoppedWhileHoldingKeepAliveConnectionsIsRestartedOnItsPortAtOnce() throws {
            let first = try ServeProcess()
            let port = first.port
            let held = try Self.holdConnections(first)
            #expect(first.stop().status == 0)
            // The clients have not closed their ends: the old server's sockets wait in FIN_WAIT2,
            // which without SO_REUSEADDR kept the port from being bound for about a minute.
            let second = try ServeProcess(store: first.store, listen: "127.0.0.1:\(port)")
            #expect(second.port == port)
            #expect(try second.request("GET", "/healthz").status == 200)
            _ = held
        }

        @Test func aServerKilledWithSignalNineIsRestartedOnItsPortAtOnce() throws {
            let first = try ServeProcess()
            let port = first.port
            let held = try Self.holdConnections(first)
            #expect(first.stop(signal: SIGKILL).status == SIGKILL)
            let second = try ServeProcess(store: first.store, listen: "127.0.0.1:\(port)")
            #expect(second.port == port)
            #expect(try second.request("GET", "/healthz").status == 200)
            _ = held
        }

        @Test func sigtermUnderKeepAliveVotesDrainsExitsZeroAndCountsEveryAnsweredVote() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeEndToEndTests.ServeAPITests.post(server)
            let feed = try server.connect()
            try feed.send("GET /api/v1/feed?limit=2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            _ = try feed.read(until: "\r\n\r\n")
            struct Outcome {
                var answered = Tally()
                var other: [String] = []
            }
            let outcome = Locked(Outcome())
            let finished = DispatchGroup()
            let voters = 16
            // Each voter votes on one kept-alive connection until the server ends it.
            let threads = (0..<voters).map { index in
                Thread {
                    defer { finished.leave() }
                    guard let connection = try? server.connect() else { return }
                    var vote = 0
                    while true {
                        let side = (index + vote).isMultiple(of: 2) ? 1 : 2
                        vote += 1
                        guard
                            let reply = try? connection.request(
                                "POST", "/api/v1/posters/1/votes", headers: [("Content-Type", "application/json")],
                                body: Array("{\"side\": \(side)}".utf8))
                        else { return }  // closed unanswered (idle when the drain began): the vote was not sent
                        if reply.status == 200 {
                            outcome.withLock { $0.answered.add(side: side, times: 1) }
                            if reply.headers["connection"]?.lowercased() == "close" { return }
                        } else {
                            outcome.withLock { $0.other.append("\(reply.status) \(reply.text)") }
                            return
                        }
                    }
                }
            }
            for thread in threads {
                finished.enter()
                thread.start()
            }
            _ = try poll("votes to be answered", seen: { "\(outcome.withLock { $0.answered })" }) {
                outcome.withLock { $0.answered.good1 + $0.answered.good2 } >= 300 ? true : nil
            }
            let (status, stderr) = server.stop()
            finished.wait()
            #expect(status == 0, "\(stderr)")
            #expect(!stderr.contains("Fatal"), "\(stderr)")
            let result = outcome.withLock { $0 }
            #expect(result.other.isEmpty, "\(result.other)")
            // Every request got its real answer: while draining, each answer closed its connection.
            // The feed ended with the server (its last chunk), not cut off by a crash.
            #expect(feed.readsLastChunk())
            let show = try Tenbin.run(["show", "1", "--json"], store: server.store)
            let poster = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
            // Every vote answered 200 is counted, and nothing else is: a vote refused or cut off
            // while draining was never cast.
            #expect(Tally(good1: poster["good1"] as? Int ?? -1, good2: poster["good2"] as? Int ?? -1) == result.answered)
        }

        @Test func localhostIsAcceptedAsTheLoopbackAddress() throws {
            let server = try ServeProcess(listen: "localhost:0")
            #expect(server.banner.contains("at http://127.0.0.1:\(server.port)/"), "\(server.banner)")
            #expect(try server.request("GET", "/healthz").status == 200)
        }

        @Test func sighupReopensTheLogFileForLogRotation() throws {
            let folder = try ScratchFolder()
            let log = folder.path + "/serve.log"
            let server = try ServeProcess(["--log-file", log])
            #expect(try server.request("GET", "/healthz?before").status == 200)
            _ = try poll("the first line in the log file", seen: { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }) {
                (try? String(contentsOfFile: log, encoding: .utf8))?.contains("GET /healthz 200") == true ? true : nil
            }
            // What logrotate does: rename the file, then `postrotate` sends SIGHUP.
            try FileManager.default.moveItem(atPath: log, toPath: log + ".1")
            kill(server.process.processIdentifier, SIGHUP)
            _ = try poll("a new log file", seen: { "none" }) { FileManager.default.fileExists(atPath: log) ? true : nil }
            #expect(try server.request("GET", "/api/v1/posters").status == 200)
            let fresh = try poll("the next line in the new log file", seen: { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }) {
                let text = try? String(contentsOfFile: log, encoding: .utf8)
                return text?.contains("GET /api/v1/posters 200") == true ? text : nil
            }
            let rotated = try String(contentsOfFile: log + ".1", encoding: .utf8)
            #expect(rotated.contains("GET /healthz 200"))
            #expect(!rotated.contains("/api/v1/posters"))
            #expect(fresh.contains("SIGHUP: reopened the log file \(log)"))
            // Every line starts with a time to the millisecond.
            for line in (rotated + fresh).split(separator: "\n") {
                #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z .*/) != nil, "\(line)")
            }
            let (status, stderr) = server.stop()
            #expect(status == 0)
            #expect(stderr == "")
        }

        @Test func sighupWithoutALogFileIsIgnoredAndSaysSo() throws {
            let server = try ServeProcess()
            kill(server.process.processIdentifier, SIGHUP)
            _ = try poll("the note about SIGHUP", seen: { server.stderr }) {
                server.stderr.contains("SIGHUP ignored: no --log-file to reopen") ? true : nil
            }
            #expect(try server.request("GET", "/healthz").status == 200)
            #expect(server.stop().status == 0)
        }

        @Test func aLogFileThatCannotBeOpenedIsOneClearError() throws {
            let folder = try ScratchFolder()
            let run = try Tenbin.run(
                ["serve", "--listen", "127.0.0.1:0", "--log-file", folder.path + "/missing/serve.log"], store: folder.path + "/store")
            #expect(run.status == 1)
            #expect(run.stdout == "")
            #expect(run.stderr == "Error: cannot open the log file \(folder.path)/missing/serve.log: No such file or directory\n")
        }

        @Test func connectionsSendingTheirHeadAByteASecondAreClosedAfterTheHeaderTimeout() throws {
            let server = try ServeProcess(["--header-timeout", "2", "--max-connections-per-ip", "0"])
            let trickle = try Shell.capture([
                "/usr/bin/python3", "-c",
                """
                import socket, time
                socks = []
                for i in range(10):
                    s = socket.create_connection(("127.0.0.1", \(server.port)))
                    s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Slow: ")
                    s.settimeout(0)
                    socks.append(s)
                kept = socket.create_connection(("127.0.0.1", \(server.port)))
                kept.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n")
                kept.settimeout(10)
                answer = kept.recv(100)
                open_ = set(range(10))
                start = time.time()
                while open_ and time.time() - start < 120:
                    for i in list(open_):
                        try:
                            socks[i].sendall(b"a")
                            if socks[i].recv(100) == b"":
                                open_.discard(i)
                        except BlockingIOError:
                            pass
                        except OSError:
                            open_.discard(i)
                    time.sleep(1)  # the client's pace: one byte a second on each connection
                print("first", answer.split(b"\\r\\n")[0].decode(), "open", len(open_))
                """,
            ])
            #expect(trickle.stdout == "first HTTP/1.1 200 OK open 0\n", "\(trickle.stderr)")
            #expect(try server.request("GET", "/healthz").status == 200)
        }

        @Test func tooLongTargetsAndHeadersGetTheJSONErrorShape() throws {
            let server = try ServeProcess()
            let long = try server.request("GET", "/api/v1/posters?q=" + String(repeating: "a", count: 11_000))
            #expect(long.status == 414)
            #expect(long.errorKind == "limit_exceeded")
            #expect(long.errorMessage == "the request target is 11018 bytes, over this server's limit of 10240")
            #expect(long.headers["content-type"] == "application/json; charset=utf-8")
            #expect(long.headers["cache-control"] == "no-store")
            #expect(long.headers["x-content-type-options"] == "nosniff", "the security headers reach the daemon's own answers")
            #expect(long.headers["cross-origin-resource-policy"] == "same-origin")
            for size in [16_500, 24_000] {
                let big = try server.request("GET", "/healthz", headers: [("X-Big", String(repeating: "b", count: size))])
                #expect(big.status == 431)
                #expect(big.errorKind == "limit_exceeded")
                #expect(big.errorMessage?.hasSuffix("over this server's limit of 16384") == true, "\(big.text)")
                #expect(big.headers["content-type"] == "application/json; charset=utf-8")
            }
            // Past libmicrohttpd's own memory (32 KiB a connection) it answers alone, still 431.
            #expect(try server.request("GET", "/healthz", headers: [("X-Big", String(repeating: "b", count: 100_000))]).status == 431)
            // Within the limits, a long target is answered as usual.
            #expect(try server.request("GET", "/healthz?" + String(repeating: "a", count: 8_000)).status == 200)
        }
    }
}

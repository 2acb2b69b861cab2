import Foundation
import Testing

extension ServeDaemonEndToEndTests {
    /// `tenbin serve` as an operator meets it: starting it next to another server, and reading
    /// its request log behind a proxy or after hostile requests.
    @Suite(.timeLimit(.minutes(10))) struct ServeOperatorTests {
        @Test func aSecondServerOnAPortAlreadyInUseRefusesToStartInsteadOfSharingIt() throws {
            let first = try ServeProcess()
            let other = try ScratchFolder()
            // Before, the listening socket was opened with SO_REUSEPORT: this second server
            // started, printed its URL and took half of the first one's connections, serving
            // another store.
            let second = try Tenbin.run(
                ["serve", "--listen", "127.0.0.1:\(first.port)"], store: other.path + "/store", deadline: 10)
            #expect(second.status == 1, "\(second.stdout)")
            #expect(second.stdout == "")
            #expect(second.stderr == "Error: cannot listen on 127.0.0.1:\(first.port): Address already in use\n")
            #expect(try first.request("GET", "/healthz").status == 200)
        }

        @Test func behindATrustedProxyTheLogNamesTheClientNotTheProxy() throws {
            let server = try ServeProcess(["--trust-proxy"])
            _ = try server.request("GET", "/healthz", headers: [("X-Forwarded-For", "203.0.113.7, 198.51.100.2")])
            let direct = try ServeProcess()
            _ = try direct.request("GET", "/healthz", headers: [("X-Forwarded-For", "198.51.100.2")])
            let (status, log) = server.stop()
            #expect(status == 0)
            // The address the proxy appended, the one rate limits count: before, every line said
            // 127.0.0.1 (nginx) and an operator could not tell one client from another.
            #expect(log.contains(" 198.51.100.2 GET /healthz 200 "), "\(log)")
            // Without --trust-proxy the header is anybody's claim: the peer is logged.
            let (_, directLog) = direct.stop()
            #expect(directLog.contains(" 127.0.0.1 GET /healthz 200 "), "\(directLog)")
            #expect(!directLog.contains("198.51.100.2"), "\(directLog)")
        }

        @Test func hostileBytesInAPathOrAForwardedAddressCannotDriveTheOperatorsTerminal() throws {
            let server = try ServeProcess(["--trust-proxy"])
            let connection = try server.connect()
            // Raw bytes, not percent-encoded: ESC, a C1 CSI (U+009B) and a right-to-left override.
            try connection.send(
                Array("GET /x".utf8) + [0x1B, 0x5D, 0x30, 0x3B, 0x07] + Array("\u{9B}31m\u{202E}gnp.exe HTTP/1.1\r\nHost: a\r\n".utf8)
                    + Array("X-Forwarded-For: 10.0.0.1, \u{202E}1.2.3.4\u{9B}2J\r\nConnection: close\r\n\r\n".utf8))
            _ = try? connection.readReply()
            connection.close()
            let (_, log) = server.stop()
            let line = log.split(separator: "\n").first { $0.contains(" 404 ") }.map(String.init) ?? ""
            #expect(line.contains(" ?1.2.3.4?2J GET /x?]0;??31m?gnp.exe 404 "), "\(log)")
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
        }

        @Test func aRateLimitHitBehindAProxyWithoutTrustProxySaysWhyInTheLog() throws {
            // nginx in front, tenbin started without --trust-proxy: every visitor is the proxy's
            // address, so the whole site shares one client's vote rate, and nothing said so.
            let server = try ServeProcess(["--vote-rate", "0.01/1"])
            try ServeEndToEndTests.ServeAPITests.post(server)
            try ServeEndToEndTests.ServeAPITests.post(server, contents: "a poster the client of its own votes on")
            let forwarded = [("X-Forwarded-For", "203.0.113.7")]
            #expect(try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#, headers: forwarded).status == 200)
            let limited = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#, headers: forwarded)
            #expect(limited.status == 429)
            #expect(limited.errorMessage == "too many votes from this address; try again in 100 s", "the client reads no more than before")
            let plain = try server.postJSON("/api/v1/posters/2/votes", #"{"side": 1}"#)
            #expect(plain.status == 429)
            let (_, log) = server.stop()
            // A line is written when its request's connection is done with, which need not be in
            // the order the replies were read: the two are told apart by their posters.
            let lines = log.split(separator: "\n").filter { $0.contains(" 429 ") }
            #expect(lines.count == 2, "\(log)")
            let behindProxy = lines.filter { $0.contains(" /api/v1/posters/1/votes 429 ") }
            let ownClient = lines.filter { $0.contains(" /api/v1/posters/2/votes 429 ") }
            #expect(behindProxy.count == 1 && ownClient.count == 1, "\(log)")
            #expect(
                behindProxy.first?.hasSuffix(
                    "error: the request names X-Forwarded-For (a proxy in front?) but --trust-proxy is off: every client behind that proxy shares one address's rate limits"
                ) == true, "\(log)")
            #expect(ownClient.first?.contains("error:") == false, "a client of its own, with no proxy: \(log)")
        }

        @Test func theServingLineShowsAStorePathsControlCharactersVisibly() throws {
            let folder = try ScratchFolder()
            let server = try ServeProcess(store: folder.path + "/board\u{1B}]0;owned\u{07}")
            #expect(server.banner == "Serving \(folder.path)/board␛]0;owned␇ at http://127.0.0.1:\(server.port)/")
        }
    }
}

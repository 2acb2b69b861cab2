import Foundation
import Testing

extension ServeEndToEndTests {
    /// DNS rebinding against the real binary: a name the board is not published under gets
    /// 421, on the wire, before anything is done.
    @Suite(.timeLimit(.minutes(5))) struct ServeHostNameTests {
        @Test func aRequestNamingAnotherHostIsMisdirectedAndAPublishedOneIsServed() throws {
            let server = try ServeProcess(["--public-url", "https://board.example"])
            for (host, status) in [("attacker.example:\(server.port)", 421), ("board.example", 200), ("localhost:\(server.port)", 200)] {
                let connection = try server.connect()
                defer { connection.close() }
                try connection.send("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                let reply = try connection.readReply()
                #expect(reply.status == status, "\(host)")
                if status == 421 {
                    #expect(reply.errorKind == "misdirected_request")
                    #expect(reply.headers["x-content-type-options"] == "nosniff")
                }
            }
        }

        @Test func aPublicURLThatIsNotOneStopsTheStart() throws {
            let folder = try ScratchFolder()
            let run = try Tenbin.run(
                ["serve", "--listen", "127.0.0.1:0", "--public-url", "board.example"], store: folder.path + "/store", deadline: 10)
            #expect(run.status == 1)
            #expect(run.stderr == "Error: --public-url must be http(s)://HOST[:PORT], not \"board.example\"\n", "\(run.stderr)")
        }
    }
}

import Foundation
import Testing

extension ServeEndToEndTests {
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
    }
}

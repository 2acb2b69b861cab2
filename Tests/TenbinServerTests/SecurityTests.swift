import TenbinKit
import Testing

@testable import TenbinServer

/// Rate limits, the same-origin rule, the admin token and listen addresses.
@Suite struct SecurityTests {
    @Test func ratesParseFromTheCommandLine() {
        #expect(Rate("10") == Rate(perSecond: 10, burst: 10))
        #expect(Rate("0.5/5") == Rate(perSecond: 0.5, burst: 5))
        #expect(Rate("0.2") == Rate(perSecond: 0.2, burst: 1))
        for bad in ["", "0", "-1", "x", "1/0", "1/", "/2", "1/2/3", "nan", "inf"] { #expect(Rate(bad) == nil, "\(bad)") }
    }

    static func head(_ headers: [String: String], peer: String = "127.0.0.1") -> RequestHead {
        RequestHead(method: "POST", target: "/api/v1/posters/1/votes", headers: HeaderFields(headers), peerAddress: peer)
    }

    static func published(_ urls: [String], trustProxy: Bool = false) throws -> RequestPolicy {
        RequestPolicy(
            adminToken: nil, trustProxy: trustProxy, origins: try PublicOrigins.make(publicURLs: urls, trustProxy: trustProxy).get())
    }

    @Test func stateChangingRequestsMustComeFromTheirOwnSite() throws {
        let policy = try Self.published(["https://example.org", "http://example.org:8080"])
        let passing: [[String: String]] = [
            ["host": "example.org"], ["host": "example.org", "origin": "https://example.org"],
            ["host": "Example.org:8080", "origin": "http://example.org:8080"],
            ["host": "example.org", "referer": "https://example.org/x?y"],
            ["host": "127.0.0.1:8080", "origin": "http://127.0.0.1:8080"], ["host": "localhost:9", "origin": "http://localhost:9"],
        ]
        for headers in passing { #expect(throws: Never.self, "\(headers)") { try policy.checkSameOrigin(Self.head(headers)) } }
        let refused: [[String: String]] = [
            ["host": "example.org", "origin": "https://evil.org"], ["host": "example.org", "origin": "null"],
            ["host": "example.org", "origin": "https://example.org.evil.org"], ["host": "example.org", "referer": "https://evil.org/"],
            ["host": "example.org", "origin": "https://user@example.org"],
            ["host": "example.org", "origin": "ftp://example.org"], ["host": "example.org:8080", "origin": "http://example.org"],
            // An http server's own address over https is not its origin.
            ["host": "127.0.0.1:8080", "origin": "https://127.0.0.1:8080"], ["host": "127.0.0.1:8080", "origin": "http://127.0.0.1:9090"],
            // A name the board is not published under, even when Host and Origin agree.
            ["host": "attacker.example:8080", "origin": "http://attacker.example:8080"],
        ]
        for headers in refused { #expect(throws: APIError.self, "\(headers)") { try policy.checkSameOrigin(Self.head(headers)) } }
        let unpublished = RequestPolicy(adminToken: nil, trustProxy: false)
        #expect(throws: APIError.self) {
            try unpublished.checkSameOrigin(Self.head(["host": "example.org", "origin": "http://example.org"]))
        }
        #expect(throws: Never.self) { try unpublished.checkSameOrigin(Self.head(["host": "[::1]:80", "origin": "http://[::1]"])) }
        let proxied = RequestPolicy(adminToken: nil, trustProxy: true)
        #expect(throws: Never.self) {
            try proxied.checkSameOrigin(
                Self.head(["host": "127.0.0.1:8080", "x-forwarded-host": "board.example", "origin": "https://board.example"]))
        }
    }

    @Test func aHostsDecisionIsKeptAndAsksTheSameAnswerAgain() throws {
        let published = try Self.published(["https://board.example"])
        // Asked twice each, in turns: the kept answer is the first one, either way.
        for _ in 0..<2 {
            #expect(throws: Never.self) { try published.checkHost(Self.head(["host": "board.example"])) }
            #expect(throws: APIError.self) { try published.checkHost(Self.head(["host": "other.example"])) }
        }
        #expect(published.hosts.count == 2)
        var asked = 0
        for _ in 0..<3 {
            #expect(
                published.hosts.allows("third.example") { _ in
                    asked += 1; return false
                } == false)
        }
        #expect(asked == 1)
        // Many names empty the store of answers; it stays bounded and answers as before.
        for index in 0..<(HostDecisions.capacity + 10) {
            #expect(throws: APIError.self) { try published.checkHost(Self.head(["host": "name\(index).example"])) }
        }
        #expect(published.hosts.count <= HostDecisions.capacity)
        #expect(throws: Never.self) { try published.checkHost(Self.head(["host": "BOARD.example:443"])) }
        #expect(throws: APIError.self) { try published.checkHost(Self.head(["host": "other.example"])) }
    }

    @Test func onlyTheNamesTheBoardIsPublishedUnderAreAnswered() throws {
        let unpublished = RequestPolicy(adminToken: nil, trustProxy: false)
        for host in ["127.0.0.1:8080", "LOCALHOST:1", "[::1]:80", "10.0.0.5"] {
            #expect(throws: Never.self, "\(host)") { try unpublished.checkHost(Self.head(["host": host])) }
        }
        for headers in [["host": "attacker.example:8080"], ["host": "127.0.0.1.evil.example"], [:], ["host": "[::1"]] {
            #expect(throws: APIError.self, "\(headers)") { try unpublished.checkHost(Self.head(headers)) }
        }
        #expect(throws: APIError.self) { try unpublished.checkHost(Self.head(["host": "x", "x-forwarded-host": "127.0.0.1"])) }
        let published = try Self.published(["https://board.example"])
        for host in ["board.example", "BOARD.example:443", "127.0.0.1:8080"] {
            #expect(throws: Never.self, "\(host)") { try published.checkHost(Self.head(["host": host])) }
        }
        for host in ["board.example:80", "other.example"] {
            #expect(throws: APIError.self, "\(host)") { try published.checkHost(Self.head(["host": host])) }
        }
        #expect(throws: Never.self, "behind a trusted proxy without --public-url, its server_name decides") {
            try RequestPolicy(adminToken: nil, trustProxy: true).checkHost(Self.head(["host": "anything.example"]))
        }
        let proxiedAndPublished = try Self.published(["https://board.example"], trustProxy: true)
        #expect(throws: Never.self) { try proxiedAndPublished.checkHost(Self.head(["host": "x", "x-forwarded-host": "board.example"])) }
        #expect(throws: APIError.self) { try proxiedAndPublished.checkHost(Self.head(["host": "x", "x-forwarded-host": "evil.example"])) }
        for bad in ["board.example", "ftp://board.example", "https://", "https://a@b.example"] {
            #expect(throws: ServerError.self, "\(bad)") { _ = try PublicOrigins.make(publicURLs: [bad], trustProxy: false).get() }
        }
    }

    @Test func theClientAddressComesFromTheProxyOnlyWhenTrusted() {
        let head = Self.head(["x-forwarded-for": "198.51.100.7, 203.0.113.9"], peer: "10.0.0.1")
        #expect(RequestPolicy(adminToken: nil, trustProxy: false).clientAddress(head) == "10.0.0.1")
        #expect(RequestPolicy(adminToken: nil, trustProxy: true).clientAddress(head) == "203.0.113.9")
        #expect(RequestPolicy(adminToken: nil, trustProxy: true).clientAddress(Self.head([:], peer: "10.0.0.1")) == "10.0.0.1")
    }

    @Test func theAdminTokenIsRequiredExactly() {
        let token = Array("0123456789abcdef".utf8)
        let policy = RequestPolicy(adminToken: token, trustProxy: false)
        #expect(throws: Never.self) { try policy.checkAdmin(Self.head(["authorization": "Bearer 0123456789abcdef"])) }
        for value in ["Bearer 0123456789abcde", "Bearer 0123456789abcdefg", "Basic 0123456789abcdef", "bearer x", "Bearer "] {
            #expect(throws: APIError.self, "\(value)") { try policy.checkAdmin(Self.head(["authorization": value])) }
        }
        #expect(throws: APIError.self) {
            try RequestPolicy(adminToken: nil, trustProxy: false).checkAdmin(Self.head(["authorization": "Bearer x"]))
        }
        #expect(RequestPolicy.constantTimeEqual([1, 2], [1, 2]))
        #expect(!RequestPolicy.constantTimeEqual([1, 2], [1, 2, 0]))
        #expect(!RequestPolicy.constantTimeEqual([], [0]))
    }

    @Test func listenAddressesAreIPAndPortOrALoopbackName() {
        #expect(ListenAddress("127.0.0.1:8080")?.port == 8080)
        #expect(ListenAddress("127.0.0.1:8080")?.isLoopback == true)
        #expect(ListenAddress("[::1]:0")?.isIPv6 == true)
        #expect(ListenAddress("[::1]:0")?.url(port: 9) == "http://[::1]:9/")
        #expect(ListenAddress("0.0.0.0:80")?.isLoopback == false)
        // A host name that resolves to loopback only (/etc/hosts) becomes its IPv4 address.
        #expect(ListenAddress("localhost:80") == ListenAddress("127.0.0.1:80"))
        for bad in ["127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "::1:80", "[::1]80", "1.2.3:4", "127.0.0.1:+80", ""] {
            #expect(ListenAddress(bad) == nil, "\(bad)")
        }
    }
}

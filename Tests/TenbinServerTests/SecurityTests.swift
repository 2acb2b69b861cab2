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

    @Test func stateChangingRequestsMustComeFromTheirOwnSite() {
        let policy = RequestPolicy(adminToken: nil, trustProxy: false)
        let passing: [[String: String]] = [
            ["host": "example.org"], ["host": "example.org", "origin": "https://example.org"],
            ["host": "Example.org:8080", "origin": "http://example.org:8080"],
            ["host": "example.org", "referer": "https://example.org/x?y"],
        ]
        for headers in passing { #expect(throws: Never.self, "\(headers)") { try policy.checkSameOrigin(Self.head(headers)) } }
        let refused: [[String: String]] = [
            ["host": "example.org", "origin": "https://evil.org"], ["host": "example.org", "origin": "null"],
            ["host": "example.org", "origin": "https://example.org.evil.org"], ["host": "example.org", "referer": "https://evil.org/"],
            ["host": "example.org", "origin": "https://user@example.org"], ["origin": "https://example.org"],
            ["host": "example.org", "origin": "ftp://example.org"], ["host": "example.org:8080", "origin": "http://example.org"],
        ]
        for headers in refused { #expect(throws: APIError.self, "\(headers)") { try policy.checkSameOrigin(Self.head(headers)) } }
        let proxied = RequestPolicy(adminToken: nil, trustProxy: true)
        #expect(throws: Never.self) {
            try proxied.checkSameOrigin(
                Self.head(["host": "127.0.0.1:8080", "x-forwarded-host": "board.example", "origin": "https://board.example"]))
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

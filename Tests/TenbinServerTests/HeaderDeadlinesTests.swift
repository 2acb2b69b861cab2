import Testing

@testable import TenbinServer

#if canImport(Glibc)
    import Glibc
#endif

/// The deadlines for a request's head, on real sockets: a connection past its deadline is shut
/// down by the tick, one that sent its head is left alone, and a new request line never moves
/// a running deadline later.
@Suite struct HeaderDeadlinesTests {
    /// A connected pair of stream sockets: the server's end and the client's.
    private static func pair() throws -> (server: Int32, client: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        return (ends[0], ends[1])
    }

    /// Whether the client's end reads the end of the stream within `seconds` (the server's end
    /// was shut down).
    private static func sawEnd(_ client: Int32, within seconds: Double) -> Bool {
        var poll = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&poll, 1, Int32(seconds * 1000)) == 1 else { return false }
        var byte: UInt8 = 0
        return read(client, &byte, 1) == 0
    }

    @Test func aConnectionPastItsDeadlineIsShutDownAndOneThatSentItsHeadIsNot() throws {
        let deadlines = HeaderDeadlines(headerTimeout: .milliseconds(100), idleTimeout: .milliseconds(100))
        defer { deadlines.stop() }
        let (slowServer, slowClient) = try Self.pair()
        let (doneServer, doneClient) = try Self.pair()
        defer { for socket in [slowServer, slowClient, doneServer, doneClient] { _ = close(socket) } }
        let slow = deadlines.opened(socket: slowServer, peerAddress: "127.0.0.1")
        let done = deadlines.opened(socket: doneServer, peerAddress: "::1")
        #expect(deadlines.openConnections == 2)
        #expect(done.peerAddress == "::1")
        deadlines.requestLineArrived(slow)
        deadlines.requestLineArrived(done)
        deadlines.headArrived(done)  // its head is complete: nothing is due until it is answered
        #expect(Self.sawEnd(slowClient, within: 2))
        #expect(!Self.sawEnd(doneClient, within: 0.6))
        // Answered, a kept-alive connection owes the next request line within the idle timeout.
        deadlines.answered(done)
        #expect(Self.sawEnd(doneClient, within: 2))
        deadlines.closed(slow)
        deadlines.closed(done)
        #expect(deadlines.openConnections == 0)
    }

    @Test func aRequestLineNeverMovesARunningDeadlineLater() throws {
        // The head's deadline is long, the idle one short: a request line arriving on an idle
        // connection keeps the idle deadline, the earlier of the two.
        let deadlines = HeaderDeadlines(headerTimeout: .seconds(60), idleTimeout: .milliseconds(100))
        defer { deadlines.stop() }
        let (server, client) = try Self.pair()
        defer { for socket in [server, client] { _ = close(socket) } }
        let open = deadlines.opened(socket: server, peerAddress: "127.0.0.1")
        deadlines.headArrived(open)
        deadlines.answered(open)
        deadlines.requestLineArrived(open)
        #expect(Self.sawEnd(client, within: 2))
        deadlines.closed(open)
    }

    @Test func theExchangesInProgressAreThoseOfTheOpenConnections() throws {
        let deadlines = HeaderDeadlines(headerTimeout: .seconds(60), idleTimeout: .seconds(60))
        defer { deadlines.stop() }
        let open = deadlines.opened(socket: -1, peerAddress: "127.0.0.1")
        #expect(deadlines.exchanges.isEmpty)
        let exchange = HTTPExchange(target: "/healthz")
        open.state.withLock { $0.exchange = exchange }
        #expect(deadlines.exchanges.map(ObjectIdentifier.init) == [ObjectIdentifier(exchange)])
        deadlines.closed(open)
        #expect(deadlines.exchanges.isEmpty)
    }
}

import Testing

@testable import TenbinKit

@Suite struct TimestampTests {
    @Test func timestampsPrintAsISO8601InUTC() {
        #expect(Timestamp(secondsSince1970: 0).description == "1970-01-01T00:00:00Z")
        #expect(Timestamp(secondsSince1970: 1_764_450_000).description == "2025-11-29T21:00:00Z")
        #expect(Timestamp(secondsSince1970: 951_782_400).description == "2000-02-29T00:00:00Z")
        #expect(Timestamp(secondsSince1970: -1).description == "1969-12-31T23:59:59Z")
    }
}

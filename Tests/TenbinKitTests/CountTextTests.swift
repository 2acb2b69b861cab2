import Testing

@testable import TenbinKit

@Suite struct CountTextTests {
    @Test func compactCountsFitFourCharactersAndNeverRoundUp() {
        let cases: [(Int, String)] = [
            (0, "0"), (7, "7"), (999, "999"), (1000, "1K"), (1050, "1K"), (1100, "1.1K"), (1999, "1.9K"), (12_345, "12K"),
            (999_999, "999K"), (1_000_000, "1M"), (1_234_567, "1.2M"), (1_000_000_000, "1B"), (2_500_000_000_000, "2.5T"),
            (Int.max, "9223Q"), (-1500, "-1.5K"),
        ]
        for (count, text) in cases { #expect(CountText.compact(count) == text, "\(count)") }
        for exponent in 0..<18 {
            var count = 1
            for _ in 0..<exponent { count *= 10 }
            #expect(CountText.compact(count * 9 + count / 2).count <= 4)
        }
    }

    @Test func groupedCountsAreExact() {
        #expect(CountText.grouped(0) == "0")
        #expect(CountText.grouped(999) == "999")
        #expect(CountText.grouped(1000) == "1,000")
        #expect(CountText.grouped(1_234_567) == "1,234,567")
        #expect(CountText.grouped(-12_345) == "-12,345")
    }
}

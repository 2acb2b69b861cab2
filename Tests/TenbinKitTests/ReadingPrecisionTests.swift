import Testing

@testable import TenbinKit

/// Search by reading measured on ``ReadingPrecisionCases``: precision (of the posters a kana
/// query finds, how many the reader wanted) and recall (of those wanted, how many it finds),
/// against the floors measured with Debian's MeCab 0.996 and mecab-ipadic-utf8
/// (docs/benchmarks.md#search-by-reading). A poster is found when the query matches its key,
/// exactly as every backend's recheck decides.
@Suite struct ReadingPrecisionTests {
    /// Found (true positives, false positives) and missed wanted cases of `cases`.
    static func measure(_ cases: [ReadingPrecisionCases.Case]) -> (found: Int, wrong: Int, missed: Int) {
        var (found, wrong, missed) = (0, 0, 0)
        for item in cases {
            let matches = SearchQuery(item.query).matches(key: SearchText.key(contents: item.text, hashtags: []))
            switch (matches, item.wanted) {
            case (true, true): found += 1
            case (true, false): wrong += 1
            case (false, true): missed += 1
            case (false, false): break
            }
        }
        return (found, wrong, missed)
    }

    @Test func theSetHasTwoHundredCasesOfEveryKind() {
        #expect(ReadingPrecisionCases.all.count >= 200)
        #expect(ReadingPrecisionCases.all.allSatisfy { item in item.query.unicodeScalars.allSatisfy { !SearchReadings.isKanji($0) } })
        #expect(ReadingPrecisionCases.all.contains { !$0.wanted })
    }

    @Test func precisionAndRecallStayAboveTheMeasuredFloors() throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        let (found, wrong, missed) = Self.measure(ReadingPrecisionCases.all)
        let precision = Double(found) / Double(found + wrong)
        let recall = Double(found) / Double(found + missed)
        print("reading precision \(found)/\(found + wrong) = \(precision), recall \(found)/\(found + missed) = \(recall)")
        #expect(precision >= Self.precisionFloor)
        #expect(recall >= Self.recallFloor)
    }

    @Test func withoutReadingsKanaQueriesFindOnlyWhatIsWritten() {
        // What a store without MeCab answers: the key as written. Every kanji case is a miss,
        // which is what readings are for.
        var missed = 0
        for item in ReadingPrecisionCases.all where item.wanted {
            if !SearchQuery(item.query).matches(key: SearchText.writtenKey(contents: item.text, hashtags: [])) { missed += 1 }
        }
        #expect(missed > ReadingPrecisionCases.all.count / 2)
    }

    /// Measured 150/170 = 0.88: every wrong find is a query that starts or ends inside a word's
    /// reading (がす in 猫が好き, にんじん in 外国人参政権).
    static let precisionFloor = 0.86
    /// Measured 150/168 = 0.89: the misses are readings chosen in context (日本 read にっぽん,
    /// 辛い つらい), names the dictionary reads otherwise (羽生 はぶ, 大谷 おおや), numbers and
    /// Latin it gives no reading (3匹 → 3ひき, F1), and voicing in compounds (暮らし in 一人暮らし).
    static let recallFloor = 0.87
}

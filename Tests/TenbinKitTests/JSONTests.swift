import Testing

@testable import TenbinKit

/// The documented JSON shapes, byte for byte: a change here breaks every script and client.
@Suite struct JSONTests {
    let digest = Digest(hex: String(repeating: "ab", count: 32))!  // 64 lowercase hex digits
    var digestHex: String { String(repeating: "ab", count: 32) }

    func poster(_ id: Int64, contents: String = "猫と犬", hashtags: [String] = ["猫"]) -> Poster {
        Poster(
            id: id, contents: contents, hashtags: hashtags, good1: 3, good2: 1,
            createdAt: Timestamp(secondsSince1970: 1_800_000_000),
            images: [
                StoredImage(digest: digest, format: .jpeg, width: 640, height: 480, bytes: 1234),
                StoredImage(digest: digest, format: .png, width: 4, height: 3, bytes: 56),
            ])
    }

    func posterText(_ id: Int64) -> String {
        "{\"id\": \(id), \"contents\": \"猫と犬\", \"hashtags\": [\"猫\"], \"good1\": 3, \"good2\": 1, "
            + "\"createdAt\": \"2027-01-15T08:00:00Z\", \"images\": ["
            + "{\"digest\": \"\(digestHex)\", \"format\": \"jpeg\", \"width\": 640, \"height\": 480, \"bytes\": 1234}, "
            + "{\"digest\": \"\(digestHex)\", \"format\": \"png\", \"width\": 4, \"height\": 3, \"bytes\": 56}]}"
    }

    @Test func aPosterIsOneLineWithItsKeysInTheDocumentedOrder() {
        #expect(JSON.poster(poster(7)) == posterText(7))
    }

    @Test func stringsEscapeQuotesBackslashesControlsAndLineSeparatorsOnly() {
        #expect(JSON.string("a\"b\\c\nd\re\tf") == #""a\"b\\c\nd\re\tf""#)
        #expect(JSON.string("\u{1B}[2J\u{7F}\u{0}") == #""\u001b[2J\u007f\u0000""#)
        #expect(JSON.string("x\u{2028}y\u{2029}z") == #""x\u2028y\u2029z""#)
        // Other characters from U+2000–U+2FFF (the careful path) and the rest stay as they are.
        #expect(JSON.string("…★ ＡＢＣ ｷﾉｺ 😀") == "\"…★ ＡＢＣ ｷﾉｺ 😀\"")
        #expect(JSON.string("") == "\"\"")
    }

    @Test func whatTheWriterEscapesReadsBackAsTheSameText() throws {
        var generator = SplitMix64(seed: 2026)
        let alphabet: [Unicode.Scalar] = ["a", "\"", "\\", "\n", "\u{0}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}", "…", "猫", "😀", "/"]
        for round in 0..<200 {
            var text = ""
            for _ in 0..<Int(generator.next() % 12) {
                text.unicodeScalars.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
            }
            let parsed = try JSONValue.parse(JSON.string(text))
            #expect(parsed == .string(text), "round \(round) with seed 2026: \(text.debugDescription)")
        }
    }

    @Test func aListOfPostersHasOnePerLineAndAnEmptyListIsBrackets() {
        #expect(JSON.posters([]) == "[]")
        #expect(JSON.posters([poster(2), poster(1)]) == "[\n  \(posterText(2)),\n  \(posterText(1))\n]")
    }

    @Test func aPageCarriesItsNextCursorOnlyWhenThereIsOne() {
        #expect(JSON.page([poster(2)], next: "abc") == "{\"posters\": [\n  \(posterText(2))\n], \"next\": \"abc\"}")
        #expect(JSON.page([poster(2)], next: nil) == "{\"posters\": [\n  \(posterText(2))\n]}")
        #expect(JSON.page([], next: nil) == "{\"posters\": []}")
    }

    @Test func theImportReportListsIdsAndErrorsOnlyWhenThereAreSome() {
        var report = ImportReport()
        report.record(ImportItem(source: "dir/a", status: .imported, id: 3), listed: true)
        report.record(ImportItem(source: "dir/b", status: .skipped, id: 1), listed: true)
        report.record(ImportItem(source: "m.jsonl:3", status: .failed, error: "x.gif is a GIF"), listed: true)
        #expect(
            JSON.importReport(report) == """
                {"imported": 1, "skipped": 1, "failed": 1, "items": [
                  {"source": "dir/a", "status": "imported", "id": 3},
                  {"source": "dir/b", "status": "skipped", "id": 1},
                  {"source": "m.jsonl:3", "status": "failed", "error": "x.gif is a GIF"}
                ]}
                """)
        #expect(JSON.importReport(ImportReport()) == #"{"imported": 0, "skipped": 0, "failed": 0, "items": []}"#)
    }

    @Test func checkAndGarbageReportsKeepTheirKeys() {
        var check = CheckReport()
        check.posters = 2
        check.blobs = 3
        #expect(JSON.checkReport(check) == #"{"ok": true, "posters": 2, "blobs": 3, "problems": [], "notes": []}"#)
        check.problems = ["blob ab is damaged"]
        check.notes = ["one \"note\""]
        #expect(
            JSON.checkReport(check)
                == #"{"ok": false, "posters": 2, "blobs": 3, "problems": ["blob ab is damaged"], "notes": ["one \"note\""]}"#)
        var garbage = GarbageReport()
        garbage.removedBlobs = [digest]
        garbage.removedBytes = 1234
        garbage.removedCardFiles = 2
        #expect(
            JSON.garbageReport(garbage) == #"{"removedBlobs": 1, "removedBytes": 1234, "removedTemporaryFiles": 0, "removedCardFiles": 2}"#)
    }

    @Test func feedLinesAreOneSnapshotThenOneLinePerChange() {
        #expect(JSON.feedLines(.snapshot([])) == [#"{"type": "snapshot", "posters": []}"#])
        #expect(
            JSON.feedLines(.snapshot([poster(2), poster(1)]))
                == ["{\"type\": \"snapshot\", \"posters\": [\(posterText(2)), \(posterText(1))]}"])
        #expect(
            JSON.feedLines(
                .changes([.added(poster(3), newIndex: 0), .modified(poster(1), oldIndex: 2, newIndex: 1), .removed(poster(2), oldIndex: 2)])
            )
                == [
                    "{\"type\": \"added\", \"id\": 3, \"newIndex\": 0, \"poster\": \(posterText(3))}",
                    "{\"type\": \"modified\", \"id\": 1, \"oldIndex\": 2, \"newIndex\": 1, \"poster\": \(posterText(1))}",
                    "{\"type\": \"removed\", \"id\": 2, \"oldIndex\": 2, \"poster\": \(posterText(2))}",
                ])
    }

    struct Missing: KindedError {
        var kind: ErrorKind { .notFound }
        var description: String { "there is no poster 9" }
    }

    struct Plain: Error, CustomStringConvertible {
        var description: String { "something \"odd\"" }
    }

    @Test func anErrorObjectCarriesItsKindAndMessage() {
        #expect(JSON.error(Missing()) == #"{"error": {"kind": "not_found", "message": "there is no poster 9"}}"#)
        #expect(JSON.error(Plain()) == #"{"error": {"kind": "internal", "message": "something \"odd\""}}"#)
        #expect(
            JSON.error(kind: .limitExceeded, message: "too big")
                == #"{"error": {"kind": "limit_exceeded", "message": "too big"}}"#)
    }

    @Test func everyErrorKindHasADistinctSnakeCaseName() {
        let names = ErrorKind.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" } })
    }

    @Test func wholeNumbersAreWrittenInDecimalAcrossTheirWholeRange() {
        func text(_ body: (inout JSONWriter) -> Void) -> String {
            var writer = JSONWriter()
            body(&writer)
            return writer.text
        }
        #expect(text { $0.integer(0) } == "0")
        #expect(text { $0.integer(-7) } == "-7")
        #expect(text { $0.integer(1_000_200) } == "1000200")
        #expect(text { $0.integer(Int64.max) } == "9223372036854775807")
        #expect(text { $0.integer(Int64.min) } == "-9223372036854775808")
        #expect(text { $0.integer(UInt64.max) } == "18446744073709551615")
    }

    @Test func timesPrintAsISO8601InUTCBeyondFourDigitYearsToo() {
        let cases: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00Z"), (1_800_000_000, "2027-01-15T08:00:00Z"), (-1, "1969-12-31T23:59:59Z"),
            (-62_135_596_800, "0001-01-01T00:00:00Z"), (253_402_300_800, "10000-01-01T00:00:00Z"),
            (-62_167_219_201, "00-1-12-31T23:59:59Z"),
        ]
        for (seconds, expected) in cases {
            let time = Timestamp(secondsSince1970: seconds)
            #expect(time.description == expected)
            var writer = JSONWriter()
            writer.timestamp(time)
            #expect(writer.text == "\"\(expected)\"")
        }
    }
}

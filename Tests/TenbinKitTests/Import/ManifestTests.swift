import Foundation
import Testing

@testable import TenbinKit

@Suite struct ManifestTests {
    private func entry(_ line: String, folder: String = "/data") -> ImportEntry {
        Array(line.utf8).withUnsafeBufferPointer { Manifest.entry($0, source: "m.jsonl:1", folder: folder) }
    }

    @Test func aLineGivesImagesContentsAndHashtagsWithRelativePathsResolved() throws {
        guard
            case .poster(let poster) = entry(
                ##"{"image1": "a/猫.jpg", "image2": "/abs/b.png", "contents": "どっち？", "hashtags": ["#x", "y"], "extra": 1}"##)
        else {
            Issue.record("expected a poster")
            return
        }
        #expect(
            poster.images == [ImportImage(path: "/data/a/猫.jpg", label: "a/猫.jpg"), ImportImage(path: "/abs/b.png", label: "/abs/b.png")])
        #expect(poster.contents == "どっち？")
        #expect(poster.hashtags == ["#x", "y"])
        #expect(poster.source == "m.jsonl:1")
    }

    @Test func contentsAndHashtagsMayBeLeftOutOrNull() {
        guard case .poster(let poster) = entry(#"{"image1": "a.jpg", "image2": "b.jpg", "contents": null}"#, folder: "") else {
            Issue.record("expected a poster")
            return
        }
        #expect(poster.images.map(\.path) == ["a.jpg", "b.jpg"])
        #expect(poster.contents == "")
        #expect(poster.hashtags == [])
    }

    @Test func badLinesFailWithAReason() {
        let cases: [(String, String)] = [
            ("not json", "line is not valid JSON: unexpected word where a value was expected at column 1"),
            ("[1, 2]", "line is not a JSON object"),
            (#"{"image1": "a.jpg"}"#, #"line has no "image2""#),
            (#"{"image1": "", "image2": "b.jpg"}"#, #"line "image1" must be a non-empty string (a file path)"#),
            (#"{"image1": "a", "image2": "b", "hashtags": "x"}"#, #"line "hashtags" must be an array of strings"#),
            (#"{"image1": "a", "image2": "b", "hashtags": [1]}"#, #"line "hashtags" must be an array of strings"#),
            (#"{"image1": "a", "image2": "b", "contents": 3}"#, #"line "contents" must be a string"#),
        ]
        for (line, reason) in cases {
            guard case .failed(let source, let got) = entry(line) else {
                Issue.record("\(line) was accepted")
                continue
            }
            #expect(source == "m.jsonl:1")
            #expect(got == reason)
        }
    }

    @Test func theFolderOfAManifestPath() {
        #expect(Manifest.folder(of: "posters.jsonl") == "")
        #expect(Manifest.folder(of: "data/posters.jsonl") == "data")
        #expect(Manifest.folder(of: "/posters.jsonl") == "/")
        #expect(Manifest.resolve("x.jpg", in: "/") == "//x.jpg")
    }

    @Test func theReaderSkipsBlankLinesAndCountsLinesWithBOMAndCRLF() throws {
        let folder = try TemporaryStore()
        let path = "\(folder.path)/m.jsonl"
        let text =
            "\u{FEFF}{\"image1\": \"a.jpg\", \"image2\": \"b.jpg\"}\r\n\r\n   \nbad\r\n{\"image1\": \"c.jpg\", \"image2\": \"d.jpg\"}"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        var reader = try ManifestReader(path: path)
        #expect(reader.total == 3)
        #expect(
            try Self.entries(&reader) == [
                "poster \(path):1 a.jpg",
                "failed \(path):4: line is not valid JSON: unexpected character where a value was expected at column 1",
                "poster \(path):5 c.jpg",
            ])
    }

    /// Every entry a reader gives, as one line each.
    static func entries(_ reader: inout ManifestReader) throws -> [String] {
        var entries: [String] = []
        while let entry = try reader.next() {
            switch entry {
            case .poster(let poster): entries.append("poster \(poster.source) \(poster.images[0].label)")
            case .failed(let source, let reason): entries.append("failed \(source): \(reason)")
            case .ignored: entries.append("ignored")
            }
        }
        return entries
    }

    @Test func aMissingManifestCannotStart() {
        #expect(throws: ImportError.self) { try ManifestReader(path: "/nonexistent/m.jsonl") }
    }

    @Test func linesLongerThanTheReadBufferAreReadWhole() throws {
        let folder = try TemporaryStore()
        let path = "\(folder.path)/long.jsonl"
        let long = String(repeating: "長", count: 100_000)
        let line = "{\"image1\": \"a\", \"image2\": \"b\", \"contents\": \"\(long)\"}"
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let reader = try LineReader(path: path, bufferSize: 4096)
        let count = try reader.next({ $0.count }, tooLong: { -1 })
        #expect(count == line.utf8.count)
        #expect(try reader.next({ $0.count }, tooLong: { -1 }) == nil)
    }

    @Test func aLineOverTheMaximumIsSkippedWithoutBeingHeldAndTheNextLinesAreRead() throws {
        let folder = try TemporaryStore()
        let path = "\(folder.path)/long.jsonl"
        let lines = [
            "\u{FEFF}" + String(repeating: "a", count: 5000) + "\r",  // the maximum after its byte-order mark
            String(repeating: "b", count: 5000),  // exactly the maximum
            String(repeating: "c", count: 5000) + "\r",  // the maximum and a CR
            String(repeating: "d", count: 5001) + "\r",  // too long, and fits the largest buffer
            String(repeating: "d", count: 5005),  // too long, and fills the largest buffer without its LF
            String(repeating: "e", count: 100_000),  // too long, skipped over many reads
            "f",
            String(repeating: "g", count: 200_000),  // too long, and the last line has no LF
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let reader = try LineReader(path: path, bufferSize: 4096, maximumLine: 5000)
        var seen: [String] = []
        while let line = try reader.next({ "\($0.count) \(Character(UnicodeScalar($0.first ?? 0x20)))" }, tooLong: { "too long" }) {
            seen.append(line)
        }
        #expect(seen == ["5000 a", "5000 b", "5000 c", "too long", "too long", "too long", "1 f", "too long"])
    }

    @Test func aManifestLineOverSixteenMebibytesFailsAloneWithItsLineNumber() throws {
        let folder = try TemporaryStore()
        let path = "\(folder.path)/m.jsonl"
        var bytes = Array(#"{"image1": "a.jpg", "image2": "b.jpg"}"#.utf8) + [0x0A]
        bytes += Array(#"{"image1": "a.jpg", "image2": "b.jpg", "contents": ""#.utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 17 << 20)
        bytes += Array("\"}\r\n".utf8) + Array(#"{"image1": "c.jpg", "image2": "d.jpg"}"#.utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var reader = try ManifestReader(path: path)
        #expect(reader.total == 3)
        #expect(
            try Self.entries(&reader) == [
                "poster \(path):1 a.jpg", "failed \(path):2: line is longer than 16 MiB", "poster \(path):3 c.jpg",
            ])
    }
}

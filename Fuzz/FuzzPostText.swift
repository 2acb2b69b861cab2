// libFuzzer target: arbitrary bytes as a poster folder's post.txt (any encoding, BOM,
// line ends), and as one line of a JSONL import manifest. Compiled with TenbinKit's sources
// by scripts/fuzz.sh; a crash, hang or sanitizer report is a bug, a thrown error is not.

@_cdecl("tenbin_fuzz_posttext")
public func fuzzPostText(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let text = try? PostText.parse(bytes) {
        // Hashtags are single words, and no line end survives into the question.
        precondition(text.hashtags.allSatisfy { !$0.isEmpty && !$0.contains(where: \.isWhitespace) }, "a hashtag is one word")
        precondition(!text.contents.contains("\r"), "line ends are normalised")
    }
    bytes.withUnsafeBufferPointer { line in
        _ = Manifest.entry(line, source: "fuzz.jsonl:1", folder: "/fuzz")
        _ = try? JSONValue.parse(line)
    }
    return 0
}

import TenbinKit
import Testing

@testable import TenbinServer

/// What the server reads from a request's query and body, without a connection.
@Suite struct RequestInputTests {
    @Test func queryStringsAreDecodedInOrderWithPlusAsSpace() throws {
        let query = try QueryString("q=%E3%82%AD%E3%83%8E+%E5%B1%B1&sort=new&q=second&flag&=empty&&x=a%2Bb")
        #expect(query["q"] == "キノ 山")
        #expect(query.all("q") == ["キノ 山", "second"])
        #expect(query["flag"] == "")
        #expect(query[""] == "empty")
        #expect(query["x"] == "a+b")
        #expect(query["missing"] == nil)
        #expect(try QueryString("").items.isEmpty)
    }

    @Test func badQueryStringsAreRefused() {
        #expect(throws: QueryString.Failure.badEscape) { try QueryString("q=%") }
        #expect(throws: QueryString.Failure.badEscape) { try QueryString("q=%4") }
        #expect(throws: QueryString.Failure.badEscape) { try QueryString("q=%zz") }
        #expect(throws: QueryString.Failure.notUTF8) { try QueryString("q=%FF") }
        #expect(throws: QueryString.Failure.notUTF8) { try QueryString("q=%E3%81") }
        #expect(throws: QueryString.Failure.tooLong) { try QueryString(Substring(String(repeating: "a", count: 9000))) }
    }

    @Test func pageParametersHaveDefaultsAndBounds() throws {
        #expect(try APIInput.order(QueryString("")) == .new)
        #expect(try APIInput.order(QueryString("sort=popular")) == .popular)
        #expect(try APIInput.order(QueryString("sort=trending")) == .trending)
        #expect(throws: APIError.self) { try APIInput.order(QueryString("sort=Popular")) }
        #expect(try APIInput.limit(QueryString("")) == 20)
        #expect(try APIInput.limit(QueryString("limit=100")) == 100)
        for bad in ["0", "101", "-1", "1e2", "", "99999999999999999999"] {
            #expect(throws: APIError.self, "\(bad)") { try APIInput.limit(QueryString(Substring("limit=\(bad)"))) }
        }
        #expect(APIInput.cursor(try QueryString("cursor=")) == nil)
        #expect(APIInput.cursor(try QueryString("cursor=abc")) == "abc")
    }

    @Test func posterIdsAreWholePositiveNumbersOnly() {
        #expect(APIInput.posterID("1") == 1)
        #expect(APIInput.posterID("9223372036854775807") == Int64.max)
        for bad: Substring in ["0", "-1", "+1", "1.0", "", "١", "99999999999999999999", " 1", "0x1"] {
            #expect(APIInput.posterID(bad) == nil, "\(bad)")
        }
    }

    @Test func voteBodiesAreReadStrictly() throws {
        #expect(try APIInput.vote(Array(#"{"side": 1}"#.utf8)) == (.first, 1))
        #expect(try APIInput.vote(Array(#" {"times": 7, "side": 2} "#.utf8)) == (.second, 7))
        #expect(try APIInput.vote(Array(#"{"side": 2.0, "times": 1e2}"#.utf8)) == (.second, 100))
        let refused: [(String, Int)] = [
            (#"{"side": 0}"#, 422), (#"{"side": true}"#, 422), (#"{"side": 1, "times": -1}"#, 422), (#"{"side": 1, "times": "2"}"#, 422),
            (#"{"side": 1, "times": 1e300}"#, 422), (#"{"side": 1, "other": 1}"#, 422), (#"{"side": 1,}"#, 400), ("null", 400),
            (String(repeating: "[", count: 100) + String(repeating: "]", count: 100), 400), ("{\"side\": 1}x", 400),
        ]
        for (body, status) in refused {
            do {
                _ = try APIInput.vote(Array(body.utf8))
                Issue.record("\(body) was accepted")
            } catch {
                #expect(error.status == status, "\(body): \(error)")
            }
        }
        #expect(throws: APIError.self) { try APIInput.vote([UInt8](repeating: 0x20, count: APIInput.maximumJSONBytes + 1)) }
    }

    @Test func theQuickVoteReaderAgreesWithTheFullParserOrLeavesTheBodyToIt() throws {
        let common = [
            #"{"side":1,"times":1}"#, #"{"side": 2, "times": 100}"#, #" { "times" : 3 ,"side":2 }"#, "{\"side\":\n1}\r\n",
            #"{"side": 1}"#,
        ]
        for body in common {
            let quick = try #require(APIInput.quickVote(Array(body.utf8)), "\(body)")
            #expect(try quick == APIInput.parsedVote(Array(body.utf8)), "\(body)")
        }
        let leftToTheParser = [
            #"{"side": 1.0}"#, #"{"side": 1e0}"#, #"{"side": 01}"#, #"{"side": 3}"#, #"{"side": 0}"#, #"{"side": -1}"#,
            #"{"side": 1, "times": 101}"#, #"{"side": 1, "times": 0}"#, #"{"side": 1, "times": 10000}"#, #"{"side": 1, "side": 2}"#,
            #"{"si\u0064e": 1}"#, #"{"side": 1,}"#, #"{"side": 1} x"#, #"{}"#, #"{"times": 1}"#, #"{"side": "1"}"#, "", "{",
            #"{"side": 1, "extra": 1}"#, #"{"side": 11111}"#,
        ]
        for body in leftToTheParser {
            #expect(APIInput.quickVote(Array(body.utf8)) == nil, "\(body)")
        }
    }

    @Test func editBodiesNeedAtLeastOneFieldOfTheRightType() throws {
        let both = try APIInput.edit(Array(#"{"contents": "q", "hashtags": ["a", "b"]}"#.utf8))
        #expect(both.contents == "q")
        #expect(both.hashtags == ["a", "b"])
        #expect(try APIInput.edit(Array(#"{"hashtags": []}"#.utf8)).hashtags == [])
        for bad in [#"{}"#, #"{"contents": null}"#, #"{"hashtags": "a"}"#, #"{"hashtags": [1]}"#, #"{"id": 3}"#] {
            #expect(throws: APIError.self, "\(bad)") { try APIInput.edit(Array(bad.utf8)) }
        }
        let long = "{\"contents\": \"" + String(repeating: "あ", count: 2000) + "\"}"
        #expect(throws: APIError.self) { try APIInput.edit(Array(long.utf8)) }
    }

    @Test func aJSONBodyMayStartWithAByteOrderMark() throws {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try APIInput.vote(mark + Array(#"{"side":2,"times":3}"#.utf8)) == (.second, 3))
        #expect(try APIInput.vote(mark + Array(#" {"side": 1.0}"#.utf8)) == (.first, 1))
        #expect(try APIInput.edit(mark + Array(#"{"contents": "q"}"#.utf8)).contents == "q")
        // One mark only, and the column of an error counts it.
        let twice = try #require(throws: APIError.self) { try APIInput.vote(mark + mark + Array(#"{"side": 1}"#.utf8)) }
        #expect(twice == .badRequest("the body is not valid JSON: unexpected character where a value was expected at column 4"))
        let broken = try #require(throws: APIError.self) { try APIInput.vote(mark + Array(#"{"side": }"#.utf8)) }
        #expect(broken == .badRequest("the body is not valid JSON: unexpected character where a value was expected at column 13"))
    }

    @Test func aKeyGivenTwiceIsRefusedNamingIt() throws {
        let vote = try #require(throws: APIError.self) { try APIInput.vote(Array(#"{"side": 1, "side": 2}"#.utf8)) }
        #expect(vote == .badRequest(#"the body is not valid JSON: the key "side" appears twice at column 13"#))
        let edit = try #require(throws: APIError.self) {
            try APIInput.edit(Array(#"{"hashtags": [], "contents": "a", "hashtags": ["x"]}"#.utf8))
        }
        #expect(edit == .badRequest(#"the body is not valid JSON: the key "hashtags" appears twice at column 35"#))
        // A key is quoted by its start, made safe to show.
        let key = "\u{202E}" + String(repeating: "k", count: 100)
        let long = try #require(throws: APIError.self) { try APIInput.vote(Array("{\"\(key)\": 1, \"\(key)\": 2}".utf8)) }
        let quoted = "\u{FFFD}" + String(repeating: "k", count: 39) + "…"
        #expect(long.message == "the body is not valid JSON: the key \"\(quoted)\" appears twice at column 112")
        // Keys repeated in different objects are not the same key.
        #expect(try APIInput.object(Array(#"{"a": {"x": 1}, "b": {"x": 2}}"#.utf8)).count == 2)
    }

    @Test func editsAndFormsOverThePosterTextLimitsAre422WithTheCoresMessage() throws {
        let cases: [(String, String)] = [
            ("{\"contents\": \"" + String(repeating: "a", count: 4097) + "\"}", "the question is longer than 4,096 bytes"),
            (
                "{\"hashtags\": [" + (0..<33).map { "\"t\($0)\"" }.joined(separator: ", ") + "]}",
                "a poster has at most 32 hashtags"
            ),
            (
                "{\"hashtags\": [\"" + String(repeating: "x", count: 201) + "\"]}",
                "the hashtag \"\(String(repeating: "x", count: 20))…\" is longer than 200 bytes"
            ),
        ]
        for (body, message) in cases {
            let error = try #require(throws: APIError.self) { try APIInput.edit(Array(body.utf8)) }
            #expect(error == .unprocessable(message))
        }
        // Counted as stored: a repeated tag and a lone # are not hashtags.
        let tags = (0..<32).map { "\"t\($0)\"" }.joined(separator: ", ")
        #expect(try APIInput.edit(Array("{\"hashtags\": [\(tags), \"t0\", \"#\"]}".utf8)).hashtags?.count == 34)
        // The page's one hashtag box, split into words, is held to the same limit.
        let box = (0..<33).map { "#t\($0)" }.joined(separator: " ")
        let form = try Self.form([("image1", "a", [1]), ("image2", "b", [2]), ("hashtags", nil, Array(box.utf8))])
        let error = try #require(throws: APIError.self) { try APIInput.posterForm(form, oneHashtagBox: true) }
        #expect(error == .unprocessable("a poster has at most 32 hashtags"))
    }

    static func form(_ parts: [(String, String?, [UInt8])]) throws -> FormParts {
        var form = FormParts(
            limits: FormLimits(maximumBytes: 1 << 20, maximumParts: 40, maximumFileBytes: 1 << 19, maximumFieldBytes: 4096))
        for (name, filename, bytes) in parts {
            try bytes.withUnsafeBufferPointer { try form.receive(name: name, filename: filename, contentType: nil, chunk: $0, offset: 0) }
        }
        return form
    }

    @Test func aPosterFormNeedsExactlyTwoImagesAndKnownFields() throws {
        let good = try APIInput.posterForm(
            Self.form([
                ("image1", "a.jpg", [1, 2]), ("contents", nil, Array("質問".utf8)), ("image2", "b.png", [3]),
                ("hashtags", nil, Array("x".utf8)), ("hashtags", nil, Array("y".utf8)),
            ]))
        #expect(good == APIInput.PosterForm(image1: [1, 2], image2: [3], contents: "質問", hashtags: ["x", "y"]))
        let bad: [[(String, String?, [UInt8])]] = [
            [("image1", "a", [1])], [("image1", "a", [1]), ("image2", "b", [2]), ("image3", "c", [3])],
            [("image1", "a", [1]), ("image1", "a", [1]), ("image2", "b", [2])],
            [("image1", "a", [1]), ("image2", "b", [2]), ("contents", nil, [0xC3])],
            [("image1", "a", [1]), ("image2", "b", [2]), ("contents", nil, [0x61]), ("contents", nil, [0x62])],
        ]
        for parts in bad {
            #expect(throws: APIError.self, "\(parts.map(\.0))") { try APIInput.posterForm(Self.form(parts)) }
        }
    }

    @Test func formPartsAreBoundedByCountAndSizeAsTheyArrive() throws {
        var form = FormParts(limits: FormLimits(maximumBytes: 100, maximumParts: 2, maximumFileBytes: 60, maximumFieldBytes: 10))
        let chunk = [UInt8](repeating: 7, count: 30)
        try chunk.withUnsafeBufferPointer { chunk in
            // A part announced empty, then filled at offset 0, is one part; a later offset continues it.
            try form.receive(name: "image1", filename: "a", contentType: nil, chunk: UnsafeBufferPointer(start: nil, count: 0), offset: 0)
            try form.receive(name: "image1", filename: "a", contentType: nil, chunk: chunk, offset: 0)
            try form.receive(name: "image1", filename: "a", contentType: nil, chunk: chunk, offset: 30)
            #expect(form.parts.count == 1)
            #expect(form.parts[0].bytes.count == 60)
            #expect(throws: FormParts.Refusal.partTooLarge(name: "image1", limit: 60)) {
                try form.receive(name: "image1", filename: "a", contentType: nil, chunk: chunk, offset: 60)
            }
            #expect(throws: FormParts.Refusal.partTooLarge(name: "contents", limit: 10)) {
                try form.receive(name: "contents", filename: nil, contentType: nil, chunk: chunk, offset: 0)
            }
            #expect(throws: FormParts.Refusal.tooManyParts(2)) {
                try form.receive(name: "hashtags", filename: nil, contentType: nil, chunk: chunk, offset: 0)
            }
        }
        var total = FormParts(limits: FormLimits(maximumBytes: 50, maximumParts: 5, maximumFileBytes: 40, maximumFieldBytes: 40))
        try [UInt8](repeating: 1, count: 30).withUnsafeBufferPointer { chunk in
            try total.receive(name: "image1", filename: "a", contentType: nil, chunk: chunk, offset: 0)
            #expect(throws: FormParts.Refusal.bodyTooLarge(50)) {
                try total.receive(name: "image2", filename: "b", contentType: nil, chunk: chunk, offset: 0)
            }
        }
    }
}

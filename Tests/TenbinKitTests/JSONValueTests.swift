import Testing

@testable import TenbinKit

@Suite struct JSONValueTests {
    @Test func objectsArraysStringsNumbersAndLiteralsAreRead() throws {
        let value = try JSONValue.parse(#" {"a": [1, -2.5e3, true, false, null], "b": "x", "c": {}} "#)
        #expect(
            value
                == .object([
                    "a": .array([.number(1), .number(-2500), .bool(true), .bool(false), .null]), "b": .string("x"), "c": .object([:]),
                ]))
    }

    @Test func escapesAndSurrogatePairsAreDecoded() throws {
        let value = try JSONValue.parse(#""q\"\\\/\n\t\u00e9\u732b\ud83d\ude00 猫""#)
        #expect(value == .string("q\"\\/\n\té猫😀 猫"))
    }

    @Test func malformedTextIsRefusedWithItsColumn() {
        for text in [#"{"a": 1"#, #"{"a" 1}"#, "[1,]", #"{"a": 1} x"#, "01", #""\x""#, #""\ud800""#, "tru", "\"a\u{01}\"", ""] {
            #expect(throws: JSONValue.SyntaxError.self, "\(text)") { try JSONValue.parse(text) }
        }
        #expect(throws: JSONValue.SyntaxError(reason: "expected ':' after a key", column: 6)) { try JSONValue.parse(#"{"a" 1}"#) }
    }

    @Test func deepNestingIsRefusedInsteadOfOverflowingTheStack() {
        let text = String(repeating: "[", count: 100_000)
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(text) }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        let bytes: [UInt8] = [0x22, 0xFF, 0x22]
        #expect(throws: JSONValue.SyntaxError.self) {
            try bytes.withUnsafeBufferPointer { buffer in
                try Result { () throws(JSONValue.SyntaxError) in try JSONValue.parse(buffer) }.get()
            }
        }
    }

    @Test func aRepeatedKeyKeepsItsLastValueUnlessRefused() throws {
        let text = Array(#"{"a": 1, "b": {"a": 2}, "a": 3}"#.utf8)
        let parsed = try text.withUnsafeBufferPointer { buffer in
            try Result { () throws(JSONValue.SyntaxError) in try JSONValue.parse(buffer) }.get()
        }
        #expect(parsed == .object(["a": .number(3), "b": .object(["a": .number(2)])]))
        let refused = text.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONValue.SyntaxError) in try JSONValue.parse(buffer, rejectingDuplicateKeys: true) }
        }
        #expect(refused == .failure(JSONValue.SyntaxError(reason: #"the key "a" appears twice"#, column: 25)))
    }
}

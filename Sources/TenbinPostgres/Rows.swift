import CLibPQ
import TenbinKit

/// The rows of one query's result, the only owner of libpq's result (freed in `deinit`).
///
/// Values come in libpq's text format, or in its binary format where the query asked for it
/// (``Connection/query(_:binary:)``): the hot reads, which then skip parsing digits, hex
/// and array literals. Each accessor reads either format of the types tenbin's schema uses
/// (`bigint`, `integer`, `boolean`, `text`, `bytea`, `text[]`). Integers and booleans decode
/// or throw ``RowDecodingError`` naming the column and row (NULL is never read as 0 or
/// false); text reads NULL as empty. A row or column out of range is a bug in the query that
/// asked for it, not bad data.
package final class Rows {
    private let result: OpaquePointer
    /// How many rows there are.
    package let count: Int
    /// Rows changed by an INSERT, UPDATE or DELETE.
    package let changes: Int

    init(_ result: OpaquePointer) {
        self.result = result
        self.count = Int(PQntuples(result))
        // PQcmdTuples: the count's digits, or an empty string for a statement without one.
        let digits = UnsafeRawPointer(PQcmdTuples(result)!).assumingMemoryBound(to: UInt8.self)
        var length = 0
        while digits[length] != 0 { length += 1 }
        // Empty for a statement without a count: none changed.
        self.changes = Int(Self.integer(UnsafeBufferPointer(start: digits, count: length)) ?? 0)
    }

    deinit {
        PQclear(result)
    }

    /// Whether the value is SQL NULL.
    package func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(result, Int32(row), Int32(column)) == 1
    }

    /// The value's bytes (empty for NULL): valid while this result lives.
    private func value(_ row: Int, _ column: Int) -> UnsafeBufferPointer<UInt8> {
        // libpq never returns NULL here (NULL reads as an empty string), but says nothing of
        // the pointer's type: it is bytes, NUL-terminated in either format.
        let start = UnsafeRawPointer(PQgetvalue(result, Int32(row), Int32(column))!).assumingMemoryBound(to: UInt8.self)
        return UnsafeBufferPointer(start: start, count: Int(PQgetlength(result, Int32(row), Int32(column))))
    }

    /// Whether the column came in binary format.
    private func isBinary(_ column: Int) -> Bool { PQfformat(result, Int32(column)) == 1 }

    /// A text value (NULL reads as empty).
    package func text(_ row: Int, _ column: Int) -> String {
        // A text column's binary format is its text, as the text format is.
        String(decoding: value(row, column), as: UTF8.self)
    }

    /// An integer value; throws ``RowDecodingError`` for NULL or anything that is not an
    /// integer of `bigint`'s range.
    package func int64(_ row: Int, _ column: Int) throws(RowDecodingError) -> Int64 {
        let bytes = try present(row, column, expected: "an integer")
        if isBinary(column) {
            // Network byte order, as wide as the column's type.
            let raw = UnsafeRawBufferPointer(bytes)
            switch bytes.count {
            case 8: return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
            case 4: return Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
            case 2: return Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
            default: throw mismatch(row, column, expected: "an integer", found: "a binary value of \(bytes.count) bytes")
            }
        }
        guard let value = Self.integer(bytes) else {
            throw mismatch(row, column, expected: "an integer", found: "'\(String(decoding: bytes.prefix(40), as: UTF8.self))'")
        }
        return value
    }

    /// A decimal integer's text, optionally negative: nil unless it is all digits and fits.
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let negative = bytes.first == UInt8(ascii: "-")
        let digits = bytes.dropFirst(negative ? 1 : 0)
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            // Accumulated negatively, so Int64.min's digits fit too.
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { return nil }
            value = next
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    /// An integer value as `Int`; throws as ``int64(_:_:)`` does.
    package func int(_ row: Int, _ column: Int) throws(RowDecodingError) -> Int { Int(try int64(row, column)) }

    /// A boolean value (`t` or `f`, or one byte in binary format); throws
    /// ``RowDecodingError`` for NULL or anything else.
    package func bool(_ row: Int, _ column: Int) throws(RowDecodingError) -> Bool {
        let bytes = try present(row, column, expected: "a boolean")
        if isBinary(column), bytes.count == 1 { return bytes[0] != 0 }
        if !isBinary(column), bytes.count == 1, bytes[0] == UInt8(ascii: "t") || bytes[0] == UInt8(ascii: "f") {
            return bytes[0] == UInt8(ascii: "t")
        }
        throw mismatch(row, column, expected: "a boolean", found: "'\(String(decoding: bytes.prefix(40), as: UTF8.self))'")
    }

    /// The value's bytes; throws when it is NULL.
    private func present(_ row: Int, _ column: Int, expected: String) throws(RowDecodingError) -> UnsafeBufferPointer<UInt8> {
        guard !isNull(row, column) else { throw mismatch(row, column, expected: expected, found: "NULL") }
        return value(row, column)
    }

    /// The error for a value that is not what the query's reader expects.
    private func mismatch(_ row: Int, _ column: Int, expected: String, found: String) -> RowDecodingError {
        // libpq returns NULL only for a column number out of range, a bug of the caller's.
        let name = PQfname(result, Int32(column)).map { String(cString: $0) } ?? "#\(column + 1)"
        return RowDecodingError(column: name, row: row, expected: expected, found: found)
    }

    /// A `bytea` value: raw in binary format; `\x` and two hex digits a byte in text format.
    package func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        let raw = value(row, column)
        if isBinary(column) { return Array(raw) }
        guard raw.count >= 2 else { return [] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((raw.count - 2) / 2)
        var index = 2
        while index + 1 < raw.count {
            bytes.append(Self.nibble(raw[index]) << 4 | Self.nibble(raw[index + 1]))
            index += 2
        }
        return bytes
    }

    /// A `bytea` value holding UTF-8 text, decoded (it may contain NUL, which `text` cannot).
    package func bytesAsText(_ row: Int, _ column: Int) -> String {
        isBinary(column) ? String(decoding: value(row, column), as: UTF8.self) : String(decoding: bytes(row, column), as: UTF8.self)
    }

    /// A one-dimensional `text[]` value's elements (NULL, and NULL elements, which tenbin
    /// never stores, read as none).
    package func textArray(_ row: Int, _ column: Int) -> [String] {
        guard !isNull(row, column) else { return [] }
        guard isBinary(column) else { return ArrayLiteral.parse(text(row, column)) }
        // The binary array: dimensions, a has-NULLs flag, the element type, each dimension's
        // length and lower bound, then each element as a length (-1 for NULL) and its bytes;
        // all integers 32-bit in network byte order. A multi-dimensional array's elements
        // come flattened, in order.
        let bytes = value(row, column)
        let raw = UnsafeRawBufferPointer(bytes)
        func integer(at offset: Int) -> Int? {
            guard offset >= 0, offset + 4 <= raw.count else { return nil }
            return Int(Int32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
        }
        guard let dimensions = integer(at: 0), dimensions > 0 else { return [] }
        var total = 1
        for dimension in 0..<dimensions {
            guard let length = integer(at: 12 + 8 * dimension) else { return [] }
            total *= max(0, length)
        }
        var elements: [String] = []
        elements.reserveCapacity(total)
        var offset = 12 + 8 * dimensions
        for _ in 0..<total {
            guard let length = integer(at: offset) else { break }
            offset += 4
            guard length >= 0 else { continue }
            guard offset + length <= raw.count else { break }
            elements.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self))
            offset += length
        }
        return elements
    }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: digit &- UInt8(ascii: "A") &+ 10
        }
    }
}

/// A value PostgreSQL answered that is not what tenbin's query expects there: NULL, or text or
/// bytes that are not of the column's type. A bug of the query or a schema changed by hand,
/// never something a user typed.
package struct RowDecodingError: KindedError, Sendable, Equatable {
    /// The column's name as the result gives it.
    package let column: String
    /// The row, from 0.
    package let row: Int
    /// What was expected (`an integer`, `a boolean`).
    package let expected: String
    /// What was found (`NULL`, the text quoted).
    package let found: String

    package var kind: ErrorKind { .internal }

    package var description: String {
        "the database answered \(found) in column '\(column)' of row \(row + 1), where tenbin expects \(expected)"
    }
}

import CLibPQ

/// The rows of one query's result, the only owner of libpq's result (freed in `deinit`).
///
/// Values come in libpq's text format, or in its binary format where the query asked for it
/// (``Connection/query(_:_:binary:)``): the hot reads, which then skip parsing digits, hex
/// and array literals. Each accessor reads either format of the types tenbin's schema uses
/// (`bigint`, `integer`, `boolean`, `text`, `bytea`, `text[]`). A row or column out of range,
/// or a binary column of another type, is a bug in the query that asked for it, not bad data.
public final class Rows {
    private let result: OpaquePointer
    /// How many rows there are.
    public let count: Int
    /// Rows changed by an INSERT, UPDATE or DELETE.
    public let changes: Int

    init(_ result: OpaquePointer) {
        self.result = result
        self.count = Int(PQntuples(result))
        // PQcmdTuples: the count's digits, or an empty string for a statement without one.
        let digits = UnsafeRawPointer(PQcmdTuples(result)!).assumingMemoryBound(to: UInt8.self)
        var length = 0
        while digits[length] != 0 { length += 1 }
        self.changes = Int(Self.decimal(UnsafeBufferPointer(start: digits, count: length)))
    }

    deinit {
        PQclear(result)
    }

    /// Whether the value is SQL NULL.
    public func isNull(_ row: Int, _ column: Int) -> Bool {
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
    public func text(_ row: Int, _ column: Int) -> String {
        // A text column's binary format is its text, as the text format is.
        String(decoding: value(row, column), as: UTF8.self)
    }

    /// An integer value (NULL or non-numeric reads as 0).
    public func int64(_ row: Int, _ column: Int) -> Int64 {
        let bytes = value(row, column)
        if isBinary(column) {
            // Network byte order, as wide as the column's type.
            let raw = UnsafeRawBufferPointer(bytes)
            switch bytes.count {
            case 8: return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
            case 4: return Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
            case 2: return Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
            default: return 0
            }
        }
        return Self.decimal(bytes)
    }

    /// A decimal integer's text, optionally negative; parsing stops at the first non-digit.
    private static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64 {
        let negative = bytes.first == UInt8(ascii: "-")
        var value: Int64 = 0
        for byte in bytes.dropFirst(negative ? 1 : 0) {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            value = value &* 10 &+ Int64(byte - UInt8(ascii: "0"))
        }
        return negative ? -value : value
    }

    /// An integer value as `Int`.
    public func int(_ row: Int, _ column: Int) -> Int { Int(int64(row, column)) }

    /// A boolean value (`t`, or a nonzero byte in binary format).
    public func bool(_ row: Int, _ column: Int) -> Bool {
        guard let first = value(row, column).first else { return false }
        return isBinary(column) ? first != 0 : first == UInt8(ascii: "t")
    }

    /// A `bytea` value: raw in binary format; `\x` and two hex digits a byte in text format.
    public func bytes(_ row: Int, _ column: Int) -> [UInt8] {
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
    public func bytesAsText(_ row: Int, _ column: Int) -> String {
        isBinary(column) ? String(decoding: value(row, column), as: UTF8.self) : String(decoding: bytes(row, column), as: UTF8.self)
    }

    /// A one-dimensional `text[]` value's elements (NULL, and NULL elements, which tenbin
    /// never stores, read as none).
    public func textArray(_ row: Int, _ column: Int) -> [String] {
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

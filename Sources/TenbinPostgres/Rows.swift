import CLibPQ

/// The rows of one query's result, the only owner of libpq's result (freed in `deinit`).
///
/// Values come in libpq's text format; these accessors decode the types tenbin's schema uses.
/// A row or column out of range is a bug in the query that asked for it, not bad data.
public final class Rows {
    private let result: OpaquePointer
    /// How many rows there are.
    public let count: Int
    /// Rows changed by an INSERT, UPDATE or DELETE.
    public let changes: Int

    init(_ result: OpaquePointer) {
        self.result = result
        self.count = Int(PQntuples(result))
        self.changes = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    deinit {
        PQclear(result)
    }

    /// Whether the value is SQL NULL.
    public func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(result, Int32(row), Int32(column)) == 1
    }

    /// A text value (NULL reads as empty).
    public func text(_ row: Int, _ column: Int) -> String {
        String(cString: PQgetvalue(result, Int32(row), Int32(column)))
    }

    /// A text value, or nil for NULL.
    public func optionalText(_ row: Int, _ column: Int) -> String? {
        isNull(row, column) ? nil : text(row, column)
    }

    /// An integer value (NULL or non-numeric reads as 0).
    public func int64(_ row: Int, _ column: Int) -> Int64 {
        var value: Int64 = 0
        var negative = false
        var pointer = PQgetvalue(result, Int32(row), Int32(column))!
        if pointer.pointee == CChar(UInt8(ascii: "-")) {
            negative = true
            pointer += 1
        }
        while pointer.pointee >= CChar(UInt8(ascii: "0")) && pointer.pointee <= CChar(UInt8(ascii: "9")) {
            value = value &* 10 &+ Int64(pointer.pointee - CChar(UInt8(ascii: "0")))
            pointer += 1
        }
        return negative ? -value : value
    }

    /// An integer value as `Int`.
    public func int(_ row: Int, _ column: Int) -> Int { Int(int64(row, column)) }

    /// A boolean value (`t`).
    public func bool(_ row: Int, _ column: Int) -> Bool {
        PQgetvalue(result, Int32(row), Int32(column)).pointee == CChar(UInt8(ascii: "t"))
    }

    /// A `bytea` value: the text format is `\x` and two hex digits a byte.
    public func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        guard length >= 2 else { return [] }
        let raw = UnsafeRawPointer(PQgetvalue(result, Int32(row), Int32(column))!).assumingMemoryBound(to: UInt8.self)
        var bytes: [UInt8] = []
        bytes.reserveCapacity((length - 2) / 2)
        var index = 2
        while index + 1 < length {
            bytes.append(Self.nibble(raw[index]) << 4 | Self.nibble(raw[index + 1]))
            index += 2
        }
        return bytes
    }

    /// A `bytea` value holding UTF-8 text, decoded (it may contain NUL, which `text` cannot).
    public func bytesAsText(_ row: Int, _ column: Int) -> String {
        String(decoding: bytes(row, column), as: UTF8.self)
    }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: digit &- UInt8(ascii: "A") &+ 10
        }
    }
}

/// The parameters of a URL's query (`a=1&b=x+y&c=%E3%81%82`), percent-decoded, `+` read as a
/// space, in order. A parameter may repeat.
struct QueryString: Sendable, Equatable {
    /// Why a query cannot be read.
    enum Failure: Error, Equatable {
        case badEscape
        case notUTF8
        case tooLong
    }

    /// The most bytes a query may have.
    static let maximumBytes = 8 * 1024

    /// The parameters in order.
    let items: [(name: String, value: String)]

    static func == (lhs: QueryString, rhs: QueryString) -> Bool {
        lhs.items.elementsEqual(rhs.items) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Parses a raw query (without the `?`).
    init(_ raw: Substring) throws(Failure) {
        guard raw.utf8.count <= Self.maximumBytes else { throw .tooLong }
        var items: [(String, String)] = []
        for pair in raw.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let name = try Self.decode(pair[..<(equals ?? pair.endIndex)])
            var value = ""
            if let equals { value = try Self.decode(pair[pair.index(after: equals)...]) }
            items.append((name, value))
        }
        self.items = items
    }

    /// The first value of `name`, or nil.
    subscript(_ name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    func all(_ name: String) -> [String] {
        items.filter { $0.name == name }.map(\.value)
    }

    /// Percent-decodes one name or value, reading `+` as a space; the result must be UTF-8.
    static func decode(_ bytes: Substring.UTF8View.SubSequence) throws(Failure) -> String {
        // Nothing to decode (most parameters): the text as it is, already valid UTF-8.
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) { return String(Substring(bytes)) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                let first = bytes.index(after: index)
                guard first != bytes.endIndex else { throw .badEscape }
                let second = bytes.index(after: first)
                guard second != bytes.endIndex, let high = hexValue(bytes[first]), let low = hexValue(bytes[second]) else {
                    throw .badEscape
                }
                out.append(high << 4 | low)
                index = second
            default:
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw .notUTF8 }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

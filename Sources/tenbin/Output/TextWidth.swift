/// How many terminal columns text takes: East Asian wide and full-width characters take
/// two, combining marks and zero-width characters none.
enum TextWidth {
    static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + of($1) }
    }

    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if (0x1100...0x115F).contains(value) || (0x2E80...0x303E).contains(value) || (0x3041...0x33FF).contains(value)
            || (0x3400...0x4DBF).contains(value) || (0x4E00...0x9FFF).contains(value) || (0xA000...0xA4CF).contains(value)
            || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value) || (0xFE30...0xFE4F).contains(value)
            || (0xFF00...0xFF60).contains(value) || (0xFFE0...0xFFE6).contains(value) || (0x1F300...0x1F64F).contains(value)
            || (0x1F900...0x1F9FF).contains(value) || (0x20000...0x3FFFD).contains(value)
        {
            return 2
        }
        return 1
    }

    /// `text` cut to at most `columns` columns, ending in "…" when cut.
    static func truncate(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        var result = ""
        var used = 0
        for character in text {
            let width = of(String(character))
            if used + width > columns - 1 { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }

    /// `text` padded with spaces on the left to `columns`.
    static func padLeft(_ text: String, to columns: Int) -> String {
        String(repeating: " ", count: max(0, columns - of(text))) + text
    }
}

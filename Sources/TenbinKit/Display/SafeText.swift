/// Text from the store made safe to show to people.
///
/// Anything a poster holds (its question, its hashtags, a file name in an import report) was
/// written by whoever posted it. Drawn raw, such text could drive the terminal that shows it:
/// an ESC sequence clears the screen or sets the window title, a lone carriage return
/// overwrites the line, and a bidirectional override (U+202E) makes text read backwards. Every
/// front end shows store text only through one of these functions: ``terminal(_:lines:)`` for
/// a terminal, ``html(_:)`` for a web page. JSON output needs neither: JSON escapes control
/// characters itself and keeps the text exact.
///
/// The rule both share: C0 controls (U+0000–U+001F), DEL and C1 controls (U+0080–U+009F) are
/// shown visibly, C0 ones and DEL as their Unicode control pictures (ESC as `␛`), C1 ones as
/// `�`; bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) are
/// shown as `�`. Line breaks (LF, CRLF, NEL, U+2028, U+2029) become one LF where the text may
/// span lines, else one space; a tab becomes one space. All other text is kept as written.
package enum SafeText {
    /// Whether the text may span lines where it is shown.
    package enum Lines: Sendable {
        /// Line breaks become spaces: a row in a list, a title, a status line.
        case one
        /// Line breaks become LF: a poster's question shown in full, a multi-line message.
        case many
    }

    /// `text` made safe to write to a terminal: no control character, escape sequence or
    /// bidirectional override reaches it.
    package static func terminal(_ text: String, lines: Lines = .one) -> String {
        guard needsWork(text) else { return text }
        var out = String.UnicodeScalarView()
        neutralise(text, lines: lines) { out.append($0) }
        return String(out)
    }

    /// `text` made safe to place in HTML, as element content or a quoted attribute value:
    /// `& < > " '` escaped as entities, and controls and bidirectional overrides treated as for
    /// ``terminal(_:lines:)``. Line breaks are kept as LF (show them with `white-space: pre-line`).
    package static func html(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        neutralise(text, lines: .many) { scalar in
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The first `scalars` scalars of `text`, with `…` when there were more, made safe as for
    /// ``terminal(_:lines:)``: how a message quotes a value that may be megabytes long (one
    /// character may hold any number of scalars, so the bound counts scalars).
    static func excerpt(_ text: String, scalars: Int) -> String {
        var start = String.UnicodeScalarView()
        start.append(contentsOf: text.unicodeScalars.prefix(scalars))
        return terminal(String(start)) + (text.unicodeScalars.dropFirst(scalars).isEmpty ? "" : "…")
    }

    /// Whether `scalar` is one this type changes (a control, a line break or a bidi override).
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || isBidiControl(value) || value == 0x2028 || value == 0x2029
    }

    private static func isBidiControl(_ value: UInt32) -> Bool {
        (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// Most text holds nothing to change: a scan of its scalars decides.
    private static func needsWork(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isUnsafe)
    }

    /// The rule itself: calls `emit` with each scalar of the safe text, in order.
    private static func neutralise(_ text: String, lines: Lines, emit: (Unicode.Scalar) -> Void) {
        let lineBreak: Unicode.Scalar = lines == .many ? "\n" : " "
        var afterCarriageReturn = false
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if afterCarriageReturn {
                afterCarriageReturn = false
                // CR LF is one line break; a lone CR (which would overwrite the line) is shown.
                if scalar == "\n" {
                    emit(lineBreak)
                    continue
                }
                emit(controlPicture(0x0D))
            }
            switch value {
            case 0x0D: afterCarriageReturn = true
            case 0x0A, 0x85, 0x2028, 0x2029: emit(lineBreak)
            case 0x09: emit(" ")
            case 0x00..<0x20, 0x7F: emit(controlPicture(value))
            case 0x80...0x9F: emit(replacement)
            default: emit(isBidiControl(value) ? replacement : scalar)
            }
        }
        if afterCarriageReturn { emit(controlPicture(0x0D)) }
    }

    /// U+FFFD, shown where a character that has no picture of its own was.
    private static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// The Unicode control picture of a C0 control or DEL: U+2400 + code, U+2421 for DEL.
    private static func controlPicture(_ value: UInt32) -> Unicode.Scalar {
        // 0x2400...0x2421 are all assigned scalars (Control Pictures), so this cannot fail.
        Unicode.Scalar(value == 0x7F ? 0x2421 : 0x2400 + value)!
    }
}

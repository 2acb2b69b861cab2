import Dispatch
import Glibc

/// A key press the interactive view understands.
enum Key: Equatable, Sendable {
    case text(String)
    case backspace
    case clearLine
    case up
    case down
    case enter
    case escape
    case interrupt
}

/// Turns the bytes a raw terminal sends into keys: UTF-8 text (possibly split across reads),
/// control keys, and arrow-key escape sequences (`ESC [ A`, `ESC O A`, …).
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// Whether the bytes so far end in an ESC that may yet start a sequence.
    var endsInEscape: Bool { pending == [0x1B] }

    /// Decodes what `bytes` complete; an unfinished sequence waits for the next call.
    mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        var text: [UInt8] = []
        func flushText() {
            if !text.isEmpty { keys.append(.text(String(decoding: text, as: UTF8.self))) }
            text = []
        }
        decoding: while index < pending.count {
            let byte = pending[index]
            switch byte {
            case 0x1B:
                guard index + 1 < pending.count else { break decoding }
                let next = pending[index + 1]
                guard next == 0x5B || next == 0x4F else {  // '[' or 'O'
                    flushText()
                    keys.append(.escape)
                    index += 1
                    continue
                }
                // A sequence ends at its first byte from 0x40 to 0x7E after the introducer.
                guard let end = pending[(index + 2)...].firstIndex(where: { (0x40...0x7E).contains($0) }) else { break decoding }
                flushText()
                switch pending[end] {
                case 0x41: keys.append(.up)
                case 0x42: keys.append(.down)
                default: break  // other keys (left, right, F-keys) do nothing here
                }
                index = end + 1
            case 0x03:
                flushText()
                keys.append(.interrupt)
                index += 1
            case 0x0D, 0x0A:
                flushText()
                keys.append(.enter)
                index += 1
            case 0x7F, 0x08:
                flushText()
                keys.append(.backspace)
                index += 1
            case 0x15:
                flushText()
                keys.append(.clearLine)
                index += 1
            case 0x10:
                flushText()
                keys.append(.up)  // Ctrl-P
                index += 1
            case 0x0E:
                flushText()
                keys.append(.down)  // Ctrl-N
                index += 1
            case 0x00..<0x20:
                index += 1  // other control keys do nothing
            default:
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                guard index + length <= pending.count else { break decoding }
                text += pending[index..<(index + length)]
                index += length
            }
        }
        flushText()
        pending.removeFirst(index)
        return keys
    }

    /// A lone ESC with nothing after it is the Escape key.
    mutating func flushEscape() -> [Key] {
        guard endsInEscape else { return [] }
        pending = []
        return [.escape]
    }
}

/// Reads keys from a terminal on its own thread, handing each batch to `deliver`.
enum KeyReader {
    static func start(fd: Int32, deliver: @escaping @Sendable ([Key]) -> Void) {
        let thread = DispatchQueue(label: "tenbin.keys")
        thread.async {
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }  // 256 bytes, never empty
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    deliver([.interrupt])  // the terminal is gone: end as if interrupted
                    return
                }
                var keys = decoder.feed(Array(buffer[0..<count]))
                if decoder.endsInEscape {
                    // An arrow key's bytes arrive together; an ESC alone for 30 ms is the Esc key.
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if poll(&poller, 1, 30) == 0 { keys += decoder.flushEscape() }
                }
                if !keys.isEmpty { deliver(keys) }
            }
        }
    }
}

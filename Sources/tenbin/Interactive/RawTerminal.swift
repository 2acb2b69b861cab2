import Glibc
import TenbinKit

/// The controlling terminal (`/dev/tty`) taken over in raw mode on the alternate screen (see
/// ``ScreenTakeover``), so a full-screen view can read single keys and draw freely. Standard
/// output stays free for the result. `restore` gives the terminal back; it runs at the latest
/// when the value is released.
final class RawTerminal {
    let fd: Int32
    private var takeover: ScreenTakeover?

    init() throws {
        fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw CommandFailure("interactive search needs a terminal: cannot open /dev/tty: \(String(cString: strerror(errno)))")
        }
        let fd = fd
        do {
            takeover = try ScreenTakeover(settingsFD: fd, keys: .raw, hideCursor: false) { Self.write($0, to: fd) }
        } catch {
            _ = close(fd)  // the handle is unusable; the error below says why
            switch error as? ScreenTakeover.Failure {
            case .cannotRead(let code): throw CommandFailure("interactive search needs a terminal: \(String(cString: strerror(code)))")
            case .cannotChange(let code): throw CommandFailure("cannot put the terminal in raw mode: \(String(cString: strerror(code)))")
            case nil: throw error
            }
        }
    }

    deinit {
        restore()
        _ = close(fd)  // nothing useful to do if closing a terminal fails
    }

    /// Leaves the alternate screen and restores the terminal's settings (once).
    func restore() {
        takeover?.end { write($0) }
        takeover = nil
    }

    /// Writes `text` whole; a terminal that went away is ignored (the program ends on its own).
    func write(_ text: String) {
        Self.write(text, to: fd)
    }

    private static func write(_ text: String, to fd: Int32) {
        _ = FileDescriptor.writeAll(text, to: fd)  // a lost terminal ends the program on its next read
    }

    /// Rows and columns, or 24×80 when the terminal does not say.
    var size: (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return (24, 80) }
        return (Int(size.ws_row), Int(size.ws_col))
    }
}

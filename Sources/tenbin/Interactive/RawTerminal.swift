import TenbinKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The controlling terminal (`/dev/tty`) in raw mode on the alternate screen, so a full-screen
/// view can read single keys and draw freely. Standard output stays free for the result.
///
/// Raw mode turns off echo, line editing and the signal keys (Ctrl-C arrives as a byte, so
/// the program can restore the terminal before it exits). `restore` puts the saved settings
/// and the normal screen back; it runs at the latest when the value is released.
final class RawTerminal {
    let fd: Int32
    private var saved = termios()
    private var isRaw = false

    init() throws {
        fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw CommandFailure("interactive search needs a terminal: cannot open /dev/tty: \(String(cString: strerror(errno)))")
        }
        guard tcgetattr(fd, &saved) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = close(fd)  // the handle is unusable; the error below says why
            throw CommandFailure("interactive search needs a terminal: \(reason)")
        }
        var raw = saved
        raw.c_iflag &= ~tcflag_t(ICRNL | IXON | BRKINT | INPCK | ISTRIP)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1  // a read returns as soon as one byte is there
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSAFLUSH, &raw) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = close(fd)  // the handle is unusable; the error below says why
            throw CommandFailure("cannot put the terminal in raw mode: \(reason)")
        }
        isRaw = true
        write("\u{1B}[?1049h")  // alternate screen: the user's scrollback is left untouched
    }

    deinit {
        restore()
        _ = close(fd)  // nothing useful to do if closing a terminal fails
    }

    /// Leaves the alternate screen and restores the terminal's settings (once).
    func restore() {
        guard isRaw else { return }
        isRaw = false
        write("\u{1B}[?1049l")
        _ = tcsetattr(fd, TCSAFLUSH, &saved)  // if this fails there is no terminal left to fix
    }

    /// Writes `text` whole; a terminal that went away is ignored (the program ends on its own).
    func write(_ text: String) {
        _ = FileDescriptor.writeAll(text, to: fd)  // a lost terminal ends the program on its next read
    }

    /// Rows and columns, or 24×80 when the terminal does not say.
    var size: (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return (24, 80) }
        return (Int(size.ws_row), Int(size.ws_col))
    }
}

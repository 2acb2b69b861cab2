import Glibc

/// The one way tenbin takes a terminal over for a full-screen view (`search -i`, `watch`) and
/// gives it back exactly as it was: the terminal's settings saved and changed, the alternate
/// screen shown (the user's scrollback is left untouched), and on `end` both undone.
struct ScreenTakeover: Sendable {
    /// How keys behave while the view is shown.
    enum Keys: Sendable {
        /// Single keys, no echo, no line editing, and the signal keys arrive as bytes (so
        /// Ctrl-C can restore the terminal before the program exits). Required.
        case raw
        /// Keys are not echoed; Ctrl-C still interrupts. Best effort: without a terminal on
        /// the settings descriptor the view is still drawn.
        case noEcho
    }

    /// Why the terminal could not be taken over: the system's errno, and whether reading or
    /// changing the settings failed.
    enum Failure: Error {
        case cannotRead(Int32)
        case cannotChange(Int32)
    }

    private let settingsFD: Int32
    private let saved: termios?
    private let hidesCursor: Bool

    /// Saves the settings of `settingsFD`, applies `keys`, and enters the alternate screen
    /// (hiding the cursor and clearing the screen when `hideCursor`) through `write`.
    init(settingsFD: Int32, keys: Keys, hideCursor: Bool, write: (String) throws -> Void) throws {
        var settings = termios()
        switch keys {
        case .raw:
            guard tcgetattr(settingsFD, &settings) == 0 else { throw Failure.cannotRead(errno) }
            var raw = settings
            raw.c_iflag &= ~tcflag_t(ICRNL | IXON | BRKINT | INPCK | ISTRIP)
            raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 1  // a read returns as soon as one byte is there
                cc[Int(VTIME)] = 0
            }
            guard tcsetattr(settingsFD, TCSAFLUSH, &raw) == 0 else { throw Failure.cannotChange(errno) }
            saved = settings
        case .noEcho:
            if isatty(settingsFD) == 1, tcgetattr(settingsFD, &settings) == 0 {
                var quiet = settings
                quiet.c_lflag &= ~tcflag_t(ECHO)
                _ = tcsetattr(settingsFD, TCSANOW, &quiet)  // without it keys echo; nothing worse
                saved = settings
            } else {
                saved = nil
            }
        }
        self.settingsFD = settingsFD
        self.hidesCursor = hideCursor
        do {
            try write("\u{1B}[?1049h" + (hideCursor ? "\u{1B}[?25l\u{1B}[H\u{1B}[2J" : ""))
        } catch {
            end { _ in }
            throw error
        }
    }

    /// Leaves the alternate screen (showing the cursor again) through `write` and puts the
    /// saved settings back. Best effort: the terminal may be gone.
    func end(write: (String) -> Void) {
        write((hidesCursor ? "\u{1B}[?25h" : "") + "\u{1B}[?1049l")
        if var saved {
            _ = tcsetattr(settingsFD, TCSAFLUSH, &saved)  // if this fails there is no terminal left to fix
        }
    }
}

import Glibc
import TenbinKit

/// One status line on standard error, redrawn in place: shown only on a terminal.
///
/// Called from the importing task while the main thread waits; the mutex makes it
/// `Sendable` and keeps redraws whole.
final class ProgressLine: Sendable {
    private let enabled: Bool
    private let width: Int
    /// How many columns the last drawn line took (0: nothing on screen).
    private let drawn = Locked(0)

    init(enabled: Bool, environment: [String: String]) {
        self.enabled = enabled
        var size = winsize()
        if enabled, ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            width = Int(size.ws_col)
        } else {
            width = environment["COLUMNS"].flatMap(Int.init) ?? 80
        }
    }

    /// `Importing 120/1000 posters · 17.6 posters/s · 0:07 elapsed · ETA 0:51`
    func show(_ progress: ImportProgress) {
        guard enabled else { return }
        let eta = progress.remainingSeconds.map { "ETA \(Self.clock($0))" } ?? "ETA –"
        let text = Self.text(progress, eta: eta)
        draw(TextWidth.truncate(text, to: max(1, width - 1)))
    }

    /// The line, counting one thing throughout: posters done, of all, and posters a second.
    static func text(_ progress: ImportProgress, eta: String) -> String {
        let perSecond = progress.seconds > 0 ? Double(progress.done) / progress.seconds : 0
        let rate = (perSecond * 10).rounded() / 10
        return "Importing \(progress.done)/\(progress.total) posters · \(rate) posters/s · \(clock(progress.seconds)) elapsed · \(eta)"
    }

    /// Any one-line status (a copy's stage and count).
    func show(text: String) {
        guard enabled else { return }
        draw(TextWidth.truncate(text, to: max(1, width - 1)))
    }

    /// Clears the line, so what follows starts on a clean one.
    func finish() {
        guard enabled else { return }
        draw("")
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if total >= 3600 { return "\(total / 3600):\(two(total / 60 % 60)):\(two(total % 60))" }
        return "\(total / 60):\(two(total % 60))"
    }

    private func draw(_ text: String) {
        drawn.withLock { previous in
            // Return to the start and pad over what was there (no escape codes: any terminal).
            let columns = TextWidth.of(text)
            var line = "\r" + text
            if previous > columns { line += String(repeating: " ", count: previous - columns) + "\r" + text }
            previous = columns
            _ = FileDescriptor.writeAll(line, to: STDERR_FILENO)  // stderr gone: progress is not worth failing over
        }
    }
}

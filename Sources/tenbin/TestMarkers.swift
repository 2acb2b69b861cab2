import Glibc
import TenbinKit

/// Named points a test can see tenbin reach. With `TENBIN_TEST_MARKERS=FILE` in the
/// environment, each point appends its name as one line to FILE; the kill tests use it to
/// prove a `kill -9` landed inside an operation (after its `…:begin`, before its `…:end`).
/// Unset, as it always is outside tests, a point costs one dictionary lookup.
///
/// With `TENBIN_TEST_HOLD=NAME=FIFO` as well, reaching the point NAME (after its line is
/// written) opens the named pipe FIFO and reads it to its end: tenbin waits there, without
/// polling, until the test opens the pipe for writing and closes it (the backup tests change
/// the board while a backup holds its snapshot).
struct TestMarkers: Sendable {
    private let path: String?
    private let hold: (name: String, fifo: String)?

    init(environment: [String: String]) {
        path = environment["TENBIN_TEST_MARKERS"].flatMap { $0.isEmpty ? nil : $0 }
        hold = environment["TENBIN_TEST_HOLD"].flatMap { text in
            text.lastIndex(of: "=").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) }
        }
    }

    /// Appends `name` and a newline with one write, so lines from several threads never mix.
    func reach(_ name: String) {
        write(name)
        guard let hold, hold.name == name else { return }
        let fd = open(hold.fifo, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }  // a test's pipe: nothing to report
        var byte: UInt8 = 0
        while read(fd, &byte, 1) > 0 {}
        _ = close(fd)  // read-only: nothing to lose
    }

    private func write(_ name: String) {
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }  // a test's marker file, not the user's data: nothing to report
        _ = FileDescriptor.writeAll(name + "\n", to: fd)  // as above
        _ = close(fd)  // as above
    }
}

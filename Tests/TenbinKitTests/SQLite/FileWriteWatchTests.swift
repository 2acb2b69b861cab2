import Foundation
import TenbinKit
import Testing

@testable import TenbinSQLite

/// The watch on the write-ahead log is one-shot and put back after its spacing: every write is
/// still reported (a write while it is away by the putting back), and one that comes long after
/// is reported too.
@Suite struct FileWriteWatchTests {
    @Test func everyWriteIsReportedWhetherTheWatchWasInPlaceOrAway() async throws {
        let folder = try TemporaryStore()
        let file = "\(folder.path)/tenbin.sqlite-wal"
        let signals = Locked(0)
        let watch = try #require(FileWriteWatch(folder: folder.path, name: "tenbin.sqlite-wal") { signals.withLock { $0 += 1 } })
        defer { withExtendedLifetime(watch) {} }

        // The first write, with the watch in place; then a second right after it, while the
        // first one's event has taken the watch away.
        try Data("a".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try await signalled(signals, past: 0))
        let afterFirst = signals.withLock { $0 }
        try append("b", to: file)
        #expect(try await signalled(signals, past: afterFirst), "a write while the watch was away went unreported")

        // Quiet, then a write long after: the watch is back and reports it.
        try await Task.sleep(for: .milliseconds(100))
        let quiet = signals.withLock { $0 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(signals.withLock { $0 } == quiet, "signals went on without writes")
        try append("c", to: file)
        #expect(try await signalled(signals, past: quiet), "a write after the watch came back went unreported")
    }

    /// Whether the count passes `count` within 10 s (a bound, not a speed test).
    private func signalled(_ signals: Locked<Int>, past count: Int) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if signals.withLock({ $0 }) > count { return true }
            try await Task.sleep(for: .milliseconds(1))
        }
        return false
    }

    private func append(_ text: String, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }
}

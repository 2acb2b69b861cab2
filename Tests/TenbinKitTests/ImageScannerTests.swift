import Foundation
import Testing

@testable import TenbinKit

/// ``ImageScanner`` running real shell scripts written to a temporary folder: accept, refuse
/// with a reason, hang, crash, garbage; it kills what it started and leaves no file behind.
@Suite(.timeLimit(.minutes(5))) struct ImageScannerTests {
    /// A folder for one test's scripts and their traces, removed after.
    final class Scripts {
        let folder: String

        init() throws {
            folder = NSTemporaryDirectory() + "tenbin-scan-test-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        /// Writes a script and returns the command that runs it. The command runs `sh` on the
        /// file rather than the file itself: a child another test spawns while this file is
        /// open for writing inherits that descriptor, and executing the file would then fail
        /// (ETXTBSY).
        func script(_ name: String, _ body: String) throws -> String {
            let path = "\(folder)/\(name)"
            try (body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return "/bin/sh \(path)"
        }

        func read(_ name: String) -> String {
            (try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)) ?? ""
        }
    }

    static let images = [
        ImageScanner.Image(bytes: Array("first".utf8), format: .jpeg), ImageScanner.Image(bytes: Array("second".utf8), format: .png),
    ]

    @Test func exitZeroAcceptsAndTheProgramReadsBothImagesWhichAreGoneAfter() throws {
        let scripts = try Scripts()
        let accept = try scripts.script("accept", "for f in \"$@\"; do echo \"$f $(cat \"$f\")\" >> \(scripts.folder)/seen; done; exit 0")
        try ImageScanner(command: accept).scan(Self.images)
        let seen = scripts.read("seen").split(separator: "\n").map { $0.split(separator: " ") }
        #expect(seen.count == 2)
        #expect(seen.map { String($0[1]) } == ["first", "second"])
        #expect(seen[0][0].hasSuffix("/image1.jpg") && seen[1][0].hasSuffix("/image2.png"))
        for entry in seen { #expect(!FileManager.default.fileExists(atPath: String(entry[0])), "left behind: \(entry[0])") }
        let folder = URL(fileURLWithPath: String(seen[0][0])).deletingLastPathComponent().path
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func exitOneRefusesWithTheFirstLineAsTheReason() throws {
        let scripts = try Scripts()
        let refuse = try scripts.script("refuse", "echo 'nudity detected (score 0.97)'; echo 'second line'; exit 1")
        #expect(throws: ImageRefusal.refusedByScan(reason: "nudity detected (score 0.97)")) {
            try ImageScanner(command: refuse).scan(Self.images)
        }
        let silent = try scripts.script("silent", "exit 1")
        #expect(throws: ImageRefusal.refusedByScan(reason: "no reason given")) { try ImageScanner(command: silent).scan(Self.images) }
    }

    @Test func garbageOutputBecomesAReasonWithoutControlCharacters() throws {
        let scripts = try Scripts()
        let garbage = try scripts.script(
            "garbage", "printf '\\033[31mred\\007 \\001\\377bad\\342\\200\\256 text\\r\\n'; head -c 100000 /dev/zero; exit 1")
        let error = try #require(throws: ImageRefusal.self) { try ImageScanner(command: garbage).scan(Self.images) }
        guard case .refusedByScan(let reason) = error else { Issue.record("\(error)"); return }
        #expect(reason == "[31mred \u{FFFD}bad text")
        #expect(!reason.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        let long = try scripts.script("long", "head -c 5000 /dev/zero | tr '\\0' 'x'; exit 1")
        let longError = try #require(throws: ImageRefusal.self) { try ImageScanner(command: long).scan(Self.images) }
        #expect(longError == .refusedByScan(reason: String(repeating: "x", count: 200) + "…"))
    }

    @Test func anyOtherStatusACrashOrAMissingProgramFailsTheScan() throws {
        let scripts = try Scripts()
        let three = try scripts.script("three", "echo fine; exit 3")
        #expect(throws: ImageRefusal.scanFailed("the scan command exited with status 3 (0 accepts the images, 1 refuses them)")) {
            try ImageScanner(command: three).scan(Self.images)
        }
        let crash = try scripts.script("crash", "kill -SEGV $$")
        #expect(throws: ImageRefusal.scanFailed("the scan command was ended by signal 11")) {
            try ImageScanner(command: crash).scan(Self.images)
        }
        #expect(throws: ImageRefusal.scanFailed("the scan command exited with status 127 (0 accepts the images, 1 refuses them)")) {
            try ImageScanner(command: "\(scripts.folder)/no-such-program").scan(Self.images)
        }
        #expect(ImageRefusal.scanFailed("x").kind == .unavailable)
    }

    @Test func aHangingProgramIsStoppedWithItsWholeProcessGroup() throws {
        let scripts = try Scripts()
        // The script and a child of its own record their ids, then wait for ever.
        let hang = try scripts.script(
            "hang", "sleep 1000 & echo $! > \(scripts.folder)/child; echo $$ > \(scripts.folder)/parent; echo partial; wait")
        #expect(throws: ImageRefusal.scanFailed("the scan command ran longer than 1 s and was stopped")) {
            try ImageScanner(command: hang, timeoutSeconds: 1).scan(Self.images)
        }
        for name in ["parent", "child"] {
            let pid = try #require(Int32(scripts.read(name).trimmingCharacters(in: .whitespacesAndNewlines)), "\(name) recorded its id")
            #expect(Self.ended(pid), "the \(name) process \(pid) still runs")
        }
    }

    @Test func whatTheProgramLeavesRunningInItsGroupIsKilledWhenItExits() throws {
        let scripts = try Scripts()
        let leave = try scripts.script("leave", "sleep 1000 > /dev/null & echo $! > \(scripts.folder)/child; exit 0")
        try ImageScanner(command: leave).scan(Self.images)
        let pid = try #require(Int32(scripts.read("child").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Self.ended(pid))
    }

    @Test func theReasonIsTheFirstLineCleaned() {
        #expect(ImageScanner.reason(from: Array("  spam \t link  \nmore".utf8)) == "spam link")
        #expect(ImageScanner.reason(from: []) == "no reason given")
        #expect(ImageScanner.reason(from: Array("\u{202E}evil\u{2028}x".utf8)) == "evil x")
    }

    /// Whether a process has ended: gone, or a zombie nobody has reaped yet (a killed
    /// grandchild is reparented to a PID 1 that may not reap it). Waits a bounded time, since
    /// SIGKILL is delivered asynchronously.
    static func ended(_ pid: Int32) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            if let close = stat.lastIndex(of: ")"), stat[stat.index(close, offsetBy: 2)] == "Z" { return true }
            usleep(10_000)
        }
        return false
    }
}

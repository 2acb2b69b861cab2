import Foundation
import Testing

/// `make test` runs `swift test` through scripts/test-summary.sh: failures in full, passing
/// tests as one count, and the exit status of `swift test` itself.
@Suite(.ownThreads) struct TestSummaryScriptTests {
    static let sample = """
        Test Suite 'Selected tests' started at 2026-11-30 21:14:14.562
        Test Suite 'Selected tests' passed at 2026-11-30 21:14:14.565
        \t Executed 0 tests, with 0 failures (0 unexpected) in 0.0 (0.0) seconds
        ◇ Test run started.
        ↳ Testing Library Version: 6.3.1 (937120cbc281cf2)
        ↳ Target Platform: x86_64-unknown-linux-gnu
        ◇ Suite GoodTests started.
        ◇ Test fine() started.
        ◇ Test broken() started.
        ✔ Test fine() passed after 0.011 seconds.
        ✘ Test broken() recorded an issue at BadTests.swift:3:9: Expectation failed: (x → 1) == 2
        ↳ a comment on the failure
        second line of a multi-line value
        ✘ Test broken() failed after 0.012 seconds with 1 issue.
        ✔ Suite GoodTests passed after 0.012 seconds.
        ➜ Test needsTmux() skipped: "needs tmux"
        ✘ Test run with 3 tests in 2 suites failed after 3.600 seconds with 1 issue.
        """

    @Test func failuresArePrintedInFullAndPassesOnlyCounted() throws {
        let folder = try ScratchFolder()
        let input = "\(folder.path)/output.txt"
        try Self.sample.write(toFile: input, atomically: true, encoding: .utf8)
        let run = try Shell.capture(["\(Tenbin.root)/scripts/test-summary.sh", "/bin/sh", "-c", "cat \"$0\"; exit 3", input])
        #expect(run.status == 3, "the status of the command itself")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "✘ Test broken() recorded an issue at BadTests.swift:3:9: Expectation failed: (x → 1) == 2",
                "↳ a comment on the failure",
                "second line of a multi-line value",
                "✘ Test broken() failed after 0.012 seconds with 1 issue.",
                "➜ Test needsTmux() skipped: \"needs tmux\"",
                "✘ Test run with 3 tests in 2 suites failed after 3.600 seconds with 1 issue.",
                "1 passing test not listed one by one (swift test --skip-build lists them).",
            ], "\(run.stdout)")
    }

    @Test func aPassingRunIsItsSummaryLine() throws {
        let run = try Shell.capture([
            "\(Tenbin.root)/scripts/test-summary.sh", "/bin/sh", "-c",
            "printf '◇ Test a() started.\\n✔ Test a() passed after 0.1 seconds.\\n✔ Test run with 1 test in 1 suite passed after 0.1 seconds.\\n'",
        ])
        #expect(run.status == 0)
        #expect(
            run.stdout
                == "✔ Test run with 1 test in 1 suite passed after 0.1 seconds.\n1 passing test not listed one by one (swift test --skip-build lists them).\n"
        )
    }

    @Test func aRunPastItsTimeLimitIsKilledWithTheTestsThatNeverEndedNamedLast() throws {
        // A stuck run: one test ended, one never does, and the command left a child of its own
        // behind, which holds the output open and must be killed with it. The child is named
        // like a tenbin process, whose stacks the report shows: a symbolic link, as the kernel
        // names a process after the path it ran. (A copy failed once with "Text file busy": its
        // descriptor, open for writing, was inherited by a child another test was forking.)
        let folder = try ScratchFolder()
        let sleeper = folder.path + "/tenbin-sleep"
        try FileManager.default.createSymbolicLink(atPath: sleeper, withDestinationPath: "/bin/sleep")
        let script = """
            printf '◇ Test quick() started.\\n◇ Test stuck() started.\\n✔ Test quick() passed after 0.1 seconds.\\n'
            \(sleeper) 200 &
            sleep 200
            """
        let started = Date()
        let run = try Shell.capture([
            "/usr/bin/env", "TEST_TIME_LIMIT=2", "\(Tenbin.root)/scripts/test-summary.sh", "/bin/sh", "-c", script,
        ])
        #expect(run.status == 124, "\(run.stdout)")
        // Its output ended: the left-behind child did not hold it open for its 200 s.
        #expect(Date().timeIntervalSince(started) < 100)
        #expect(run.stdout.hasPrefix("== watchdog: still running after 2 s: /bin/sh -c"), "\(run.stdout)")
        #expect(run.stdout.contains("sleep 200"), "the processes still running are listed: \(run.stdout)")
        let lines = run.stdout.split(separator: "\n")
        let stacks = lines.drop { !($0.hasPrefix("== stacks of ") && $0.hasSuffix("tenbin-sleep 200")) }
        #expect(!stacks.isEmpty, "the tenbin process's stacks are shown: \(run.stdout)")
        if getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
            // gdb attaches (as root; a user may be refused by the kernel's ptrace scope).
            #expect(stacks.dropFirst().first?.hasPrefix("Thread ") == true, "\(run.stdout)")
            #expect(stacks.contains { $0.hasPrefix("#0 ") }, "\(run.stdout)")
        }
        let unended =
            (run.stdout.components(separatedBy: "== tests started and not ended\n").last ?? "")
            .components(separatedBy: "== watchdog: killed").first ?? ""
        #expect(unended.hasPrefix("  stuck()\n"), "\(run.stdout)")
        #expect(!unended.contains("quick()"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("== watchdog: killed after 2 s: /bin/sh -c \(script)\n"), "\(run.stdout)")
    }
}

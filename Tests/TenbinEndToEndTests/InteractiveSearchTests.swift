import Foundation
import Testing

/// `tenbin search -i` driven in a real pseudo-terminal (tmux): keys in, screen out.
@Suite(.ownThreads, .enabled(if: TmuxSession.isAvailable, "needs tmux"), .timeLimit(.minutes(10)))
struct InteractiveSearchTests {
    /// Starts interactive search in tmux; its stdout, exit status and the terminal settings
    /// before and after go to files in `folder`.
    func start(_ folder: ScratchFolder, debounce: Int = 50) throws -> TmuxSession {
        let p = folder.path
        return try TmuxSession(
            """
            stty -g > \(p)/stty-before; \(Tenbin.binary) --store \(p) search -i --debounce \(debounce) > \(p)/out; \
            s=$?; stty -g > \(p)/stty-after; echo $s > \(p)/status; sleep 60
            """)
    }

    func file(_ folder: ScratchFolder, _ name: String) -> String {
        (try? String(contentsOfFile: "\(folder.path)/\(name)", encoding: .utf8)) ?? ""
    }

    @Test func typingShowsResultsArrowsSelectAndEnterPrintsTheId() throws {
        let store = try makeSearchStore()
        let tmux = try start(store)
        try tmux.waitForScreen { $0.contains("Type words to search") }
        try tmux.type("ドッチ")
        let screen = try tmux.waitForScreen { $0.contains("2 found") }
        #expect(screen.contains("Search: ドッチ"))
        #expect(screen.contains("> #2 "))
        #expect(screen.contains("  #1 "))
        try tmux.press("Down")
        try tmux.waitForScreen { $0.contains("> #1 ") }
        try tmux.press("Enter")
        #expect(try waitForFile("\(store.path)/status") == "0\n")
        #expect(file(store, "out") == "1\n")
        #expect(file(store, "stty-after") == file(store, "stty-before"))
    }

    @Test func resultsFollowEditsAndWidthOrKanaDoNotMatter() throws {
        let store = try makeSearchStore()
        let tmux = try start(store)
        try tmux.waitForScreen { $0.contains("Type words to search") }
        try tmux.type("ｷﾉｺ")
        #expect(try tmux.waitForScreen { $0.contains("1 found") }.contains("> #3 "))
        try tmux.press("BSpace", "BSpace", "BSpace")
        try tmux.waitForScreen { $0.contains("Type words to search") }
        try tmux.type("東京 夜")
        #expect(try tmux.waitForScreen { $0.contains("1 found") }.contains("> #4 "))
        try tmux.type("x")
        try tmux.waitForScreen { $0.contains("No posters match.") }
        try tmux.press("Enter")  // nothing to select: Enter does nothing
        try tmux.press("Escape")
        #expect(try waitForFile("\(store.path)/status") == "130\n")
        #expect(file(store, "out").isEmpty)
    }

    @Test func escapeAndCtrlCExit130AndRestoreTheTerminal() throws {
        for key in ["Escape", "C-c"] {
            let store = try makeSearchStore()
            let tmux = try start(store)
            try tmux.waitForScreen { $0.contains("Type words to search") }
            try tmux.type("猫")
            try tmux.waitForScreen { $0.contains("1 found") }
            try tmux.press(key)
            #expect(try waitForFile("\(store.path)/status") == "130\n", "\(key)")
            #expect(file(store, "out").isEmpty)
            #expect(!file(store, "stty-before").isEmpty)
            #expect(file(store, "stty-after") == file(store, "stty-before"), "\(key)")
        }
    }

    @Test func nothingIsSearchedUntilTypingPauses() throws {
        let store = try makeSearchStore()
        let tmux = try start(store, debounce: 60_000)
        try tmux.waitForScreen { $0.contains("Type words to search") }
        try tmux.type("猫")
        let screen = try tmux.waitForScreen { $0.contains("Search: 猫") }
        // With a minute's debounce the search cannot have run yet.
        #expect(screen.contains("Searching…"))
        #expect(!screen.contains("#1 "))
        try tmux.press("Escape")
        #expect(try waitForFile("\(store.path)/status") == "130\n")
    }
}

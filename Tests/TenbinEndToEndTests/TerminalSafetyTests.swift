import Foundation
import Testing

/// Text someone posted never reaches another person's terminal as control sequences: every
/// command that draws posters shows them visibly, and `--json` keeps them exact.
@Suite(.ownThreads) struct TerminalSafetyTests {
    /// Sets the window title, clears the screen, turns text red and reverses what follows.
    static let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mred\u{202E}cba\r\nnext"
    /// How it is shown on one line.
    static let shown = "␛]0;pwned␇␛[2J␛[31mred\u{FFFD}cba next"

    static func store() throws -> ScratchFolder {
        let folder = try ScratchFolder()
        let sample = SampleFiles.sampleFolders[0]
        let run = try Tenbin.run(
            ["post", sample.images[0], sample.images[1], "--text", hostile, "--tag", "猫"], store: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        return folder
    }

    /// Nothing that drives a terminal: no ESC, BEL, CR, C1 control or bidi override.
    static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            let value = scalar.value
            return (value < 0x20 && value != 0x0A) || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                || (0x2066...0x2069).contains(value)
        }
    }

    /// Our own colour codes are allowed; nothing that came from the poster is.
    static func hasOnlyOwnEscapes(_ text: String) -> Bool {
        !text.contains("\u{1B}]") && !text.contains("\u{1B}[2J") && !text.contains("\u{1B}[31m") && !text.contains("\u{202E}")
            && !text.contains("\u{07}") && !text.contains("\r")
    }

    @Test func postListShowAndSearchShowControlSequencesVisibly() throws {
        let store = try Self.store()
        for arguments in [["list"], ["search", "red"], ["search", "#猫"]] {
            let run = try Tenbin.run(arguments, store: store.path, environment: ["COLUMNS": "200"])
            #expect(run.status == 0)
            #expect(Self.isInert(run.stdout), "\(arguments)")
            #expect(run.stdout.contains(Self.shown), "\(arguments): \(run.stdout)")
        }
        let show = try Tenbin.run(["show", "1"], store: store.path)
        #expect(Self.isInert(show.stdout))
        #expect(show.stdout.contains("␛]0;pwned␇␛[2J␛[31mred\u{FFFD}cba\nnext"))
        let posted = try Tenbin.run(
            ["post", SampleFiles.sampleFolders[1].images[0], SampleFiles.sampleFolders[1].images[1], "--text", Self.hostile],
            store: store.path)
        #expect(posted.status == 0)
        #expect(Self.isInert(posted.stdout))
    }

    @Test func drawnImagesKeepTheirOwnColoursButNotThePostersSequences() throws {
        let store = try Self.store()
        for arguments in [["list", "--images"], ["show", "1", "--images"], ["search", "red", "--images"]] {
            let run = try Tenbin.run(arguments, store: store.path, environment: ["COLUMNS": "80"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("\u{1B}[38;2;"), "images drawn")
            #expect(Self.hasOnlyOwnEscapes(run.stdout), "\(arguments)")
            #expect(run.stdout.contains("␛]0;pwned␇"))
        }
    }

    @Test func jsonKeepsTheTextExact() throws {
        let store = try Self.store()
        let run = try Tenbin.run(["list", "--json"], store: store.path)
        let posters = try #require(try JSONSerialization.jsonObject(with: run.stdoutBytes) as? [[String: Any]])
        #expect(posters.first?["contents"] as? String == Self.hostile)
        #expect(run.stdout.contains(#"\u001b]0;pwned\u0007"#))
    }

    @Test func errorLinesNamingHostileFilesAreInertToo() throws {
        let folder = try ScratchFolder()
        let manifest = "\(folder.path)/posters.jsonl"
        try #"{"image1": "\u001b]0;pwned\u0007.jpg", "image2": "b.jpg"}"#.write(toFile: manifest, atomically: true, encoding: .utf8)
        let run = try Tenbin.run(["import", manifest], store: folder.path + "/store")
        #expect(run.status == 1)
        #expect(Self.isInert(run.stderr))
        #expect(run.stderr.contains("␛]0;pwned␇.jpg"))
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "needs tmux"))
    func interactiveSearchShowsControlSequencesVisibly() throws {
        let store = try Self.store()
        let tmux = try TmuxSession("\(Tenbin.binary) --store \(store.path) search -i --debounce 10 red; sleep 60", columns: 120)
        let screen = try tmux.waitForScreen { $0.contains("1 found") }
        #expect(screen.contains("␛]0;pwned␇␛[2J␛[31mred"), "\(screen)")
        #expect(screen.contains("Search: red"))
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "needs tmux"))
    func watchShowsControlSequencesVisibly() throws {
        let store = try Self.store()
        let tmux = try TmuxSession("\(Tenbin.binary) --store \(store.path) watch; sleep 60", columns: 120)
        let screen = try tmux.waitForScreen { $0.contains("Ctrl-C to quit") && $0.contains("#1") }
        #expect(screen.contains("␛]0;pwned␇␛[2J␛[31mred"), "\(screen)")
        try tmux.press("C-c")
    }
}

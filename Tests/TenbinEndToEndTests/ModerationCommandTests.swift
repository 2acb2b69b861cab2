import Foundation
import Testing

/// `tenbin report` and `tenbin moderation`, run as users run them: reports hide a poster at the
/// threshold, moderators review, restore, hide and remove, and the log names who did what.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct ModerationCommandTests {
    static let images = EditCommandTests.images

    @Test func reportsHideAPosterAndModeratorsReviewRestoreHideRemoveAndReadTheLog() throws {
        let store = try ScratchFolder()
        for text in ["keep", "spam here"] {
            #expect(try Tenbin.run(["post"] + Self.images + ["--text", text], store: store.path).status == 0)
        }
        let first = try Tenbin.run(
            ["report", "2", "--reason", "spam", "--note", "ads", "--as", "ann", "--report-threshold", "2"], store: store.path)
        #expect(first.status == 0 && first.stdout == "Reported #2 (spam).\n" && first.stderr.isEmpty, "\(first.stderr)")
        let again = try Tenbin.run(["report", "2", "--reason", "abuse", "--as", "ann"], store: store.path)
        #expect(again.status == 1 && again.stderr == "Error: poster #2: you have reported this poster already\n")
        let second = try Tenbin.run(
            ["report", "2", "--reason", "illegal", "--as", "bob", "--report-threshold", "2", "--json"], store: store.path)
        #expect(second.stdout == "{\"poster\": 2, \"reason\": \"illegal\"}\n", "\(second.stdout)")
        // Hidden: gone from the list, search and show; the queue has it.
        #expect(try Tenbin.run(["list", "--json"], store: store.path).stdout.contains("\"id\": 2") == false)
        #expect(try Tenbin.run(["search", "spam", "--json"], store: store.path).stdout == "[]\n")
        #expect(try Tenbin.run(["show", "2"], store: store.path).stderr == "Error: poster #2: no such poster\n")
        let queue = try Tenbin.run(["moderation", "list"], store: store.path)
        #expect(queue.status == 0)
        #expect(queue.stdout.hasPrefix("#2 · hidden since "), "\(queue.stdout)")
        #expect(queue.stdout.contains("2 reports (spam 1, illegal 1)"), "\(queue.stdout)")
        let shown = try Tenbin.run(["moderation", "show", "2", "--json"], store: store.path)
        #expect(shown.stdout.contains("\"hidden\": true") && shown.stdout.contains("\"note\": \"ads\""), "\(shown.stdout)")
        #expect(!shown.stdout.contains("ann") && !shown.stdout.contains("bob"), "reporters are not shown")

        let restored = try Tenbin.run(["moderation", "restore", "2", "--reason", "fine", "--as", "mod"], store: store.path)
        #expect(restored.status == 0 && restored.stdout.hasPrefix("Restored #2.\n#2 · shown · 0 reports"), "\(restored.stdout)")
        #expect(try Tenbin.run(["show", "2"], store: store.path).status == 0)
        #expect(try Tenbin.run(["moderation", "list"], store: store.path).stdout == "Nothing to review.\n")
        #expect(
            try Tenbin.run(["moderation", "hide", "1", "--as", "mod"], store: store.path).stdout.hasPrefix("Hid #1.\n#1 · hidden since "))
        #expect(try Tenbin.run(["list", "--json"], store: store.path).stdout.contains("\"id\": 1,") == false)
        let removed = try Tenbin.run(["moderation", "remove", "2", "--reason", "dup", "--as", "mod"], store: store.path)
        #expect(removed.stdout == "Removed #2.\n")
        #expect(try Tenbin.run(["moderation", "show", "2"], store: store.path).stderr == "Error: poster #2: no such poster\n")

        let log = try Tenbin.run(["moderation", "log", "--json"], store: store.path)
        let entries = try #require(
            (try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.map { $0["action"] as? String } == ["remove", "hide", "restore", "hide"])
        #expect(entries.map { $0["actor"] as? String } == ["mod", "mod", "mod", "reports"])
        #expect(entries.map { $0["poster"] as? Int } == [2, 1, 2, 2])
        let text = try Tenbin.run(["moderation", "log", "2", "--limit", "1"], store: store.path)
        #expect(text.stdout.hasSuffix(" mod remove #2: dup\n") && text.stdout.split(separator: "\n").count == 1, "\(text.stdout)")
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
    }

    @Test func badArgumentsAreUsageErrorsAndFailuresNameThePoster() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.images, store: store.path).status == 0)
        let cases: [([String], String)] = [
            (["report", "1"], "Error: --reason is required: spam, abuse, illegal or other"),
            (["report", "1", "--reason", "rude"], "Error: 'rude' is not a report reason; use one of spam, abuse, illegal, other"),
            (["moderation"], "Error: missing ACTION"),
            (
                ["moderation", "ban", "1"],
                "Error: 'ban' is not a moderation action; use one of list, show, restore, hide, remove, log, blocklist"
            ),
            (["moderation", "hide"], "Error: hide needs the poster's ID"),
            (["moderation", "list", "1"], "Error: list takes no ID (show 1 shows one poster)"),
            (["moderation", "hide", "x"], "Error: 'x' is not a poster id (a whole number from 1)"),
            (["moderation", "hide", "1", "--block-images"], "Error: --block-images goes with remove only"),
        ]
        for (arguments, message) in cases {
            let run = try Tenbin.run(arguments, store: store.path)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.hasPrefix(message + "\n"), "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        let long = try Tenbin.run(["report", "1", "--reason", "spam", "--note", String(repeating: "x", count: 501)], store: store.path)
        #expect(long.status == 1 && long.stderr == "Error: a report's note may have at most 500 characters; this one has 501\n")
        let missing = try Tenbin.run(["moderation", "hide", "9"], store: store.path)
        #expect(missing.status == 1 && missing.stderr == "Error: poster #9: no such poster\n")
        #expect(try Tenbin.run(["show", "1"], store: store.path).status == 0)
        #expect(try Tenbin.run(["moderation", "log"], store: store.path).stdout == "The audit log is empty.\n")
        let help = try Tenbin.run(["moderation", "--help"], store: store.path)
        #expect(help.status == 0 && help.stdout.contains("USAGE") && help.stdout.contains("--block-images"))
    }
}

extension ServeEndToEndTests {
    /// Reports over HTTP against a real server, reviewed from the command line on the same store:
    /// the server hears the command's restore through its change source.
    @Suite(.timeLimit(.minutes(10))) struct ServeModerationTests {
        @Test func reportsOverHTTPHideAPosterAndARestoreFromTheCommandLineShowsItAgain() throws {
            let server = try ServeProcess(["--report-threshold", "2"])
            try ServeAPITests.post(server, contents: "report me")
            #expect(try server.postJSON("/api/v1/posters/1/reports", #"{"reason": "spam"}"#).status == 202)
            // One address counts once, however often it asks.
            #expect(try server.postJSON("/api/v1/posters/1/reports", #"{"reason": "abuse"}"#).status == 409)
            #expect(try server.request("GET", "/api/v1/posters/1").status == 200)
            #expect(try Tenbin.run(["report", "1", "--reason", "other", "--as", "ops"], store: server.store).status == 0)
            // The command's report is the second reporter (the server's threshold is 2, the
            // command's default 3): the command does not hide it; the queue shows two.
            let item = try Tenbin.run(["moderation", "show", "1", "--json"], store: server.store)
            #expect(item.stdout.contains("\"counted\": 2"), "\(item.stdout)")
            #expect(try Tenbin.run(["moderation", "hide", "1", "--as", "ops"], store: server.store).status == 0)
            _ = try poll("the server to hide poster 1", seen: { "" }) {
                try server.request("GET", "/api/v1/posters/1").status == 404 ? true : nil
            }
            #expect(try Tenbin.run(["moderation", "restore", "1", "--as", "ops"], store: server.store).status == 0)
            _ = try poll("the server to show poster 1 again", seen: { "" }) {
                try server.request("GET", "/api/v1/posters/1").status == 200 ? true : nil
            }
            #expect(server.stop().status == 0)
        }
    }
}

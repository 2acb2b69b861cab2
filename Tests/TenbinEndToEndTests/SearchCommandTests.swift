import Foundation
import Testing

/// A store with four posters from the sample images, for the search tests.
func makeSearchStore() throws -> ScratchFolder {
    let folder = try ScratchFolder()
    let images = ["\(Tenbin.root)/SampleImages/01-cats-or-dogs/1-cat.jpg", "\(Tenbin.root)/SampleImages/01-cats-or-dogs/2-dog.jpg"]
    let posters: [(String, [String])] = [
        ("猫と犬、どっちが好き？", ["猫", "ペット"]),
        ("ＡＢＣ or ａｂｃ? １００点はどっち", ["フォント"]),
        ("ｷﾉｺ派？タケノコ派？", ["きのこ"]),
        ("東京タワーとスカイツリー", ["東京", "夜景"]),
    ]
    for (text, tags) in posters {
        let run = try Tenbin.run(["post", images[0], images[1], "--text", text] + tags.flatMap { ["--tag", $0] }, store: folder.path)
        guard run.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["stderr": run.stderr]) }
    }
    return folder
}

@Suite(.ownThreads, .timeLimit(.minutes(10))) struct SearchCommandTests {
    func ids(_ json: String) throws -> [Int] {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        return array.compactMap { $0["id"] as? Int }
    }

    @Test func wordsMatchWhateverTheirWidthCaseOrKana() throws {
        let store = try makeSearchStore()
        for (query, expected) in [
            (["キノコ"], [3]), (["ｷﾉｺ"], [3]), (["きのこ"], [3]), (["ABC", "100"], [2]), (["ふぉんと"], [2]),
            (["どっち"], [2, 1]), (["東"], [4]), (["#猫"], [1]), (["＃東京", "夜景"], [4]), (["猫 どっち"], [1]),
        ] {
            let run = try Tenbin.run(["search"] + query + ["--json"], store: store.path)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(query): \(run.stderr)")
            #expect(try ids(run.stdout) == expected, "\(query)")
        }
    }

    @Test func kanaFindsKanjiByItsReading() throws {
        let store = try makeSearchStore()
        for (query, expected) in [
            (["ねこ"], [1]), (["#ねこ"], [1]), (["とうきょう", "よる"], []), (["とうきょう", "やけい"], [4]), (["すき"], [1]),
        ] {
            let run = try Tenbin.run(["search"] + query + ["--json"], store: store.path)
            #expect(run.stderr.isEmpty, "\(query): \(run.stderr)")
            #expect(try ids(run.stdout) == expected, "\(query)")
        }
    }

    @Test func withoutADictionaryAPostSaysSoAndKanaFindOnlyWhatIsWritten() throws {
        let store = try ScratchFolder()
        let images = ["\(Tenbin.root)/SampleImages/01-cats-or-dogs/1-cat.jpg", "\(Tenbin.root)/SampleImages/01-cats-or-dogs/2-dog.jpg"]
        let missing = ["TENBIN_MECAB_DICTIONARY": "\(store.path)/no-dictionary"]
        let post = try Tenbin.run(["post", images[0], images[1], "--text", "猫が好き"], store: store.path, environment: missing)
        #expect(post.status == 0)
        let notes = post.stderr.split(separator: "\n")
        #expect(notes.count == 1 && notes[0].hasPrefix("note: search by reading is off: MeCab has no dictionary"), "\(post.stderr)")
        #expect(notes.first?.contains("\(store.path)/no-dictionary") == true)
        #expect(try Tenbin.run(["search", "ねこ"], store: store.path).status == 1)
        #expect(try Tenbin.run(["search", "猫"], store: store.path).status == 0)
        // Nothing is wrong with such a store; a repair where MeCab is installed gives readings.
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
        #expect(try Tenbin.run(["check", "--repair"], store: store.path).status == 0)
        #expect(try Tenbin.run(["search", "ねこ"], store: store.path).status == 0)
        // Without libmecab itself, the same: one note naming the library.
        let noLibrary = ["TENBIN_LIBMECAB": "\(store.path)/libmecab-missing.so"]
        let other = try Tenbin.run(["post", images[0], images[1], "--text", "犬"], store: store.path, environment: noLibrary)
        #expect(other.status == 0)
        #expect(other.stderr.hasPrefix("note: search by reading is off: libmecab (\(store.path)/libmecab-missing.so"), "\(other.stderr)")
        #expect(try Tenbin.run(["search", "いぬ"], store: store.path).status == 1)
    }

    @Test func jsonIsTheSameShapeAsList() throws {
        let store = try makeSearchStore()
        let search = try Tenbin.run(["search", "東京", "--json"], store: store.path)
        let list = try Tenbin.run(["list", "--json", "--limit", "1"], store: store.path)
        #expect(search.stdout == list.stdout)
    }

    @Test func sortLimitAndOffsetPage() throws {
        let store = try makeSearchStore()
        try Tenbin.run(["vote", "1", "1", "--times", "3"], store: store.path)
        let popular = try Tenbin.run(["search", "どっち", "--sort", "popular", "--json"], store: store.path)
        #expect(try ids(popular.stdout) == [1, 2])
        let page = try Tenbin.run(["search", "派", "どっち", "--limit", "1", "--offset", "0", "--json"], store: store.path)
        #expect(try ids(page.stdout) == [])
        let second = try Tenbin.run(["search", "どっち", "--limit", "1", "--offset", "1", "--json"], store: store.path)
        #expect(try ids(second.stdout) == [1])
    }

    @Test func textOutputListsPostersAndSaysWhenNothingMatches() throws {
        let store = try makeSearchStore()
        let found = try Tenbin.run(["search", "たけのこ"], store: store.path)
        #expect(found.status == 0)
        #expect(found.stdout.hasPrefix("#3  "))
        #expect(found.stdout.contains("ｷﾉｺ派？タケノコ派？"))
        let none = try Tenbin.run(["search", "寿司"], store: store.path)
        #expect(none.status == 1 && none.stdout == "No posters.\n" && none.stderr.isEmpty)
    }

    @Test func nothingMatchedExitsOneLikeGrep() throws {
        let store = try makeSearchStore()
        #expect(try Tenbin.run(["search", "たけのこ"], store: store.path).status == 0)
        let json = try Tenbin.run(["search", "寿司", "--json"], store: store.path)
        #expect(json.status == 1 && json.stdout == "[]\n" && json.stderr.isEmpty)
        let pastTheEnd = try Tenbin.run(["search", "たけのこ", "--offset", "5"], store: store.path)
        #expect(pastTheEnd.status == 1 && pastTheEnd.stderr.isEmpty)
        let noStore = try Tenbin.run(["search", "猫"], store: store.path + "/nowhere")
        #expect(noStore.status == 1)
        // A shell script's test: true only when something matched.
        let script = "if '\(Tenbin.binary)' --store '\(store.path)' search \"$1\" >/dev/null; then echo found; else echo none; fi"
        #expect(try Shell.capture(["/bin/sh", "-c", script, "sh", "キノコ"]).stdout == "found\n")
        #expect(try Shell.capture(["/bin/sh", "-c", script, "sh", "寿司"]).stdout == "none\n")
    }

    @Test func aQueryOfOnlyWhiteSpaceIsAUsageError() throws {
        let store = try makeSearchStore()
        for query in [[], [" "], ["\u{3000}", "\t"]] {
            let run = try Tenbin.run(["search"] + query, store: store.path)
            #expect(run.status == 64)
            #expect(run.stderr.hasPrefix("Error: "))
            #expect(run.stderr.contains("Usage: tenbin search"))
            #expect(run.stdout.isEmpty)
        }
    }

    @Test func hostileWordsAreSearchedForNotInterpreted() throws {
        let store = try makeSearchStore()
        for query in ["\"", "*", "AND", "NEAR(", "'", "' OR 1=1 --", "%", "\u{1}", "🐱", String(repeating: "猫", count: 10_000)] {
            let run = try Tenbin.run(["search", "--json", "--", query], store: store.path)
            #expect(run.status == 1 && run.stderr.isEmpty, "\(query.prefix(20)): \(run.stderr)")
            #expect(run.stdout == "[]\n", "\(query.prefix(20))")
        }
        let question = try Tenbin.run(["search", "?", "--json"], store: store.path)
        #expect(try ids(question.stdout) == [3, 2, 1])  // ？ is ? once widths are folded
    }

    @Test func debounceWithoutInteractiveIsAUsageError() throws {
        let store = try makeSearchStore()
        let run = try Tenbin.run(["search", "猫", "--debounce", "100"], store: store.path)
        #expect(run.status == 64)
    }

    @Test func interactiveSearchWithoutATerminalFailsClearly() throws {
        let store = try makeSearchStore()
        // setsid starts tenbin in a new session with no controlling terminal to open.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["-w", Tenbin.binary, "--store", store.path, "search", "-i"]
        let run = try Shell.collect(process, what: "setsid tenbin search -i")
        let stderr = String(decoding: run.stderr, as: UTF8.self)
        #expect(run.status == 1)
        #expect(stderr.hasPrefix("Error: interactive search needs a terminal"))
    }
}

import Foundation
import Testing

/// `tenbin tag TAG`: the tag's totals and its posters trending first; `--json`; an empty tag
/// refused; `tenbin list --sort trending`.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct TagCommandTests {
    static let images = TimelineCommandTests.images

    @Test func tagListsItsPostersTrendingFirstWithTotalsAndJSON() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.images + ["--text", "one", "--tag", "Cats"], store: store.path).status == 0)
        #expect(
            try Tenbin.run(["post"] + Self.images + ["--text", "two", "--tag", "cats", "--tag", "dogs"], store: store.path).status == 0)
        #expect(try Tenbin.run(["post"] + Self.images + ["--text", "three", "--tag", "dogs"], store: store.path).status == 0)
        #expect(try Tenbin.run(["vote", "2", "2", "--times", "3"], store: store.path).status == 0)
        #expect(try Tenbin.run(["vote", "3", "1", "--times", "5"], store: store.path).status == 0)
        let shown = try Tenbin.run(["tag", "#cats"], store: store.path)
        #expect(shown.status == 0 && shown.stderr.isEmpty, "\(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "#cats · 2 posters · 3 votes (0 : 3)", "\(shown.stdout)")
        #expect(lines.count == 3 && lines[1].hasPrefix("#2 ") && lines[2].hasPrefix("#1 "), "\(shown.stdout)")
        let json = try Tenbin.run(["tag", "CATS", "--json", "--limit", "1"], store: store.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["posterCount"] as? Int == 2 && object["totalVotes"] as? Int == 3 && object["next"] is String)
        #expect((object["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [2])
        let trending = try Tenbin.run(["list", "--sort", "trending", "--json"], store: store.path)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(trending.stdout.utf8)) as? [[String: Any]])
        #expect(listed.compactMap { $0["id"] as? Int } == [3, 2, 1])
        let empty = try Tenbin.run(["tag", " # "], store: store.path)
        #expect(empty.status != 0 && empty.stdout.isEmpty)
        #expect(empty.stderr.hasPrefix("Error: a tag needs at least one character besides # and white space"), "\(empty.stderr)")
        let unknown = try Tenbin.run(["tag", "nobody"], store: store.path)
        #expect(unknown.status == 0 && unknown.stdout == "#nobody · 0 posters · 0 votes (0 : 0)\n", "\(unknown.stdout)")
    }
}

import Foundation
import Testing

/// `tenbin edit` changes text and hashtags, keeps id, images and votes, and search follows.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct EditCommandTests {
    static let images = [Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg", Tenbin.root + "/SampleImages/01-cats-or-dogs/2-dog.jpg"]

    @Test func editKeepsIdImagesAndVotesAndSearchFindsTheNewText() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.images + ["--text", "きのこ派？", "--tag", "きのこ"], store: store.path).status == 0)
        #expect(try Tenbin.run(["vote", "1", "2", "--times", "3"], store: store.path).status == 0)
        let before = try Tenbin.run(["show", "1", "--json"], store: store.path).stdout
        let edit = try Tenbin.run(["edit", "1", "--text", "たけのこ派？", "--tag", "＃タケノコ", "--json"], store: store.path)
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(edit.stdout.contains("\"contents\": \"たけのこ派？\""))
        #expect(edit.stdout.contains("\"hashtags\": [\"タケノコ\"]"))
        #expect(edit.stdout.contains("\"good2\": 3"))
        let digests = { (json: String) in json.matches(of: /"digest": "([0-9a-f]{64})"/).map { String($0.output.1) } }
        #expect(digests(before).count == 2 && digests(edit.stdout) == digests(before))
        #expect(!(try Tenbin.run(["search", "きのこ", "--json"], store: store.path).stdout.contains("\"id\": 1")))
        #expect(try Tenbin.run(["search", "ﾀｹﾉｺ", "--json"], store: store.path).stdout.contains("\"id\": 1"))
        // Only the hashtags: the question stays.
        let tagsOnly = try Tenbin.run(["edit", "1", "--clear-tags", "--json"], store: store.path)
        #expect(tagsOnly.stdout.contains("\"contents\": \"たけのこ派？\"") && tagsOnly.stdout.contains("\"hashtags\": []"))
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
    }

    @Test func editRefusesNothingToChangeConflictingOptionsAndUnknownIds() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.images, store: store.path).status == 0)
        let nothing = try Tenbin.run(["edit", "1"], store: store.path)
        #expect(nothing.status == 64)
        #expect(nothing.stderr.hasPrefix("Error: nothing to change: give --text, --tag or --clear-tags"))
        let both = try Tenbin.run(["edit", "1", "--tag", "x", "--clear-tags"], store: store.path)
        #expect(both.status == 64)
        let missing = try Tenbin.run(["edit", "9", "--text", "x"], store: store.path)
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: poster #9: no such poster\n")
    }
}

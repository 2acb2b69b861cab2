import Foundation
import Testing

/// Vote counts as people read them: "no votes yet" rather than two 0% sides, compact counts
/// in lists, exact ones in `show`, `vote` and `--json`.
@Suite(.ownThreads) struct CountsForPeopleTests {
    static func store(posters: Int) throws -> ScratchFolder {
        let folder = try ScratchFolder()
        let sample = SampleFiles.sampleFolders[0]
        for index in 1...posters {
            let run = try Tenbin.run(["post", sample.images[0], sample.images[1], "--text", "question \(index)"], store: folder.path)
            #expect(run.status == 0, "\(run.stderr)")
        }
        return folder
    }

    @Test func aPosterWithoutVotesSaysNoVotesYet() throws {
        let store = try Self.store(posters: 1)
        let show = try Tenbin.run(["show", "1"], store: store.path)
        #expect(show.stdout.contains("\n  no votes yet\n"), "\(show.stdout)")
        #expect(!show.stdout.contains("50%"))
        let drawn = try Tenbin.run(["show", "1", "--images"], store: store.path, environment: ["COLUMNS": "60"])
        #expect(drawn.stdout.contains("\nno votes yet\n"))
        #expect(!drawn.stdout.contains("50%"))
        try Tenbin.run(["vote", "1", "2"], store: store.path)
        let voted = try Tenbin.run(["show", "1"], store: store.path)
        #expect(voted.stdout.contains("0 votes (0%)") && voted.stdout.contains("1 vote (100%)"))
    }

    @Test func aBillionVotesTakeFourColumnsInAListAndStayExactElsewhere() throws {
        let store = try Self.store(posters: 2)
        let vote = try Tenbin.run(["vote", "1", "1", "--times", "1000000000"], store: store.path)
        #expect(vote.stdout.contains("1,000,000,000 : 0"), "\(vote.stdout)")
        try Tenbin.run(["vote", "1", "2", "--times", "1234567"], store: store.path)
        let list = try Tenbin.run(["list"], store: store.path, environment: ["COLUMNS": "60"])
        let rows = list.stdout.split(separator: "\n").map(String.init)
        #expect(rows.count == 2)
        #expect(rows[0].contains(" 0 : 0     question 2"), "\(rows[0])")
        #expect(rows[1].contains(" 1B : 1.2M  question 1"), "\(rows[1])")
        let show = try Tenbin.run(["show", "1"], store: store.path)
        #expect(show.stdout.contains("1,000,000,000 votes (100%)") && show.stdout.contains("1,234,567 votes (0%)"))
        let json = try Tenbin.run(["list", "--json"], store: store.path)
        #expect(json.stdout.contains(#""good1": 1000000000, "good2": 1234567"#))
    }
}

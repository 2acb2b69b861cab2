import Foundation
import Testing

/// Help shows each option's default and each argument from the command's own declarations,
/// the same values the command then uses.
@Suite(.ownThreads, .timeLimit(.minutes(10)))
struct HelpDefaultsTests {
    @Test func helpShowsTheDefaultsTheCommandsUse() throws {
        let vote = try Tenbin.run(["help", "vote"])
        #expect(vote.stdout.contains("--times N          Add N votes at once (default: 1).\n"), "\(vote.stdout)")
        #expect(vote.stdout.contains("ARGUMENTS:\n  ID   The poster's id.\n  1|2  The side to vote for.\n"), "\(vote.stdout)")
        #expect(vote.stdout.contains("--database-pool N  At most N connections to the PostgreSQL database (default: 8)."))
        let serve = try Tenbin.run(["help", "serve"])
        for line in [
            "Address to listen on; port 0 picks one; localhost works (default: 127.0.0.1:8080).",
            "(a new poster), 1 to 1024 MiB (default: 25).",
            "Votes per client address (default: 10/40).", "0 for no limit (default: 256).", "1 to 300 (default: 15).",
        ] {
            #expect(serve.stdout.contains(line), "\(line)")
        }
        // The --times range is the board's own maximum.
        let folder = try ScratchFolder()
        let tooMany = try Tenbin.run(["vote", "1", "1", "--times", "1000000001"], store: folder.path)
        #expect(tooMany.status == 64 && tooMany.stderr.hasPrefix("Error: '--times' takes a whole number from 1 to 1000000000,"))
    }
}

import Foundation
import Testing

@Suite(.ownThreads, .timeLimit(.minutes(10))) struct ConcurrencyTests {
    @Test func fourProcessesCasting250VotesEachCountExactly1000() throws {
        let store = try ScratchFolder()
        let images = [Tenbin.root + "/SampleImages/10-no-question/left.jpg", Tenbin.root + "/SampleImages/10-no-question/right.jpg"]
        #expect(try Tenbin.run(["post"] + images, store: store.path).status == 0)
        // Each process is a shell loop of 250 separate `tenbin vote` processes.
        let script = "for i in $(seq 250); do \"$0\" --store \"$1\" vote 1 $2 || echo FAILED; done"
        let voters = try (0..<4).map { index in
            try RunningProcess(["/bin/sh", "-c", script, Tenbin.binary, store.path, index % 2 == 0 ? "1" : "2"])
        }
        var failures = ""
        for voter in voters {
            let text = try voter.finish()
            failures += text.split(separator: "\n").filter { !$0.hasPrefix("#1 ") }.joined(separator: "\n")
        }
        #expect(failures.isEmpty, "no error printed")
        let shown = try Tenbin.run(["show", "1", "--json"], store: store.path)
        #expect(shown.stdout.contains("\"good1\": 500, \"good2\": 500"))
    }
}

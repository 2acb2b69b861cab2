import Foundation
import Testing

/// Many processes at once on one store: voters, an importer and a watcher. Every vote must
/// be counted exactly once and the store must check clean at the end.
@Suite(.ownThreads, .timeLimit(.minutes(15))) struct SoakTests {
    static let voters = 3
    static let votesPerVoter = 120

    @Test func votersAnImporterAndAWatcherTogetherLoseNothing() throws {
        let store = try ScratchFolder()
        let images = [Tenbin.root + "/SampleImages/10-no-question/left.jpg", Tenbin.root + "/SampleImages/10-no-question/right.jpg"]
        for _ in 0..<3 { #expect(try Tenbin.run(["post"] + images, store: store.path).status == 0) }

        // A manifest of 300 posters over the sample images, for the importer.
        let manifest = store.path + "/manifest.jsonl"
        let samples = Tenbin.root + "/SampleImages"
        let lines = (0..<300).map { index in
            "{\"image1\": \"\(samples)/09-sea-or-mountain/sea.jpg\", \"image2\": \"\(samples)/09-sea-or-mountain/mountain.jpg\", \"contents\": \"soak \(index)\"}"
        }
        try lines.joined(separator: "\n").write(toFile: manifest, atomically: true, encoding: .utf8)

        // Each voter is a shell loop of separate `tenbin vote` processes; it prints what it
        // cast, so the expected totals are known exactly.
        let script = """
            i=0; while [ $i -lt $3 ]; do
              id=$(( (i + $4) % 3 + 1 )); side=$(( (i / 3 + $4) % 2 + 1 ))
              if "$0" --store "$1" vote $id $side > /dev/null; then echo "$id $side"; else echo "FAILED $id $side"; fi
              i=$((i + 1))
            done
            """
        var processes: [RunningProcess] = []
        for voter in 0..<Self.voters {
            processes.append(
                try RunningProcess(["/bin/sh", "-c", script, Tenbin.binary, store.path, "x", String(Self.votesPerVoter), String(voter)]))
        }
        let importer = try RunningProcess([Tenbin.binary, "--store", store.path, "import", manifest, "--jobs", "1"])
        let watcher = try RunningProcess([Tenbin.binary, "--store", store.path, "watch", "--json", "--limit", "5", "--sort", "popular"])

        var expected: [String: Int] = [:]
        var failures: [String] = []
        for process in processes {
            let text = try process.finish()
            for line in text.split(separator: "\n") {
                if line.hasPrefix("FAILED") { failures.append(String(line)) } else { expected[String(line), default: 0] += 1 }
            }
        }
        let imported = try importer.finish()
        watcher.terminate()
        let watched = try watcher.finish()
        #expect(watcher.terminationStatus == 143, "watch ends on SIGTERM, even when nobody was reading it")
        #expect(watched.hasPrefix("{\"type\": \"snapshot\""))

        #expect(failures.isEmpty, "votes that failed: \(failures.prefix(5))")
        #expect(importer.terminationStatus == 0, "\(imported)")
        #expect(expected.values.reduce(0, +) == Self.voters * Self.votesPerVoter)
        for id in 1...3 {
            let shown = try Tenbin.run(["show", String(id), "--json"], store: store.path)
            #expect(shown.stdout.contains("\"good1\": \(expected["\(id) 1"] ?? 0), \"good2\": \(expected["\(id) 2"] ?? 0)"), "poster \(id)")
        }
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("OK: 303 posters"))
    }
}

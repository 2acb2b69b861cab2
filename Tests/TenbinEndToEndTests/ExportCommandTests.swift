import Foundation
import Testing

/// `tenbin export` as a user runs it: every poster in CSV that another program (Python's
/// csv module) reads back exactly, JSON Lines, a file written whole or not at all, and each
/// kind of bad input refused with its reason.
@Suite(.ownThreads, .timeLimit(.minutes(5)))
struct ExportCommandTests {
    static let images = PostgresCommandTests.images
    static let questions = ["He said \"hi\", then\nleft", "=HYPERLINK(\"http://x.example\")", "猫と犬, どっち？"]

    /// A store with the three questions posted (the first tagged) and votes on the second.
    static func board() throws -> ScratchFolder {
        let folder = try ScratchFolder()
        for (index, question) in questions.enumerated() {
            let tags = index == 0 ? ["--tag", "ねこ", "--tag", "dogs"] : []
            let posted = try Tenbin.run(["post"] + images + ["--text", question] + tags, store: folder.path)
            try #require(posted.status == 0, "\(posted.stderr)")
        }
        try #require(try Tenbin.run(["vote", "2", "2", "--times", "7"], store: folder.path).status == 0)
        return folder
    }

    /// The CSV at `path` as Python's csv module reads it: rows of fields.
    static func pythonRows(_ path: String, encoding: String = "utf-8") throws -> [[String]] {
        let script =
            "import csv, json, sys\nwith open(sys.argv[1], newline='', encoding=sys.argv[2]) as f: print(json.dumps(list(csv.reader(f))))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path, encoding]
        let result = try Shell.collect(process, what: "python3 csv", stdin: nil, seconds: Deadline.standard)
        try #require(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String]])
    }

    @Test func theCSVReadsBackExactlyInAnotherProgram() throws {
        let folder = try Self.board()
        let path = folder.path + "/posters.csv"
        let run = try Tenbin.run(["export", "--output", path], store: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.prefix(3) != Data([0xEF, 0xBB, 0xBF]), "no byte-order mark by default")
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("id,created,question,hashtags,good1,good2,image1,image2\r\n"))
        let rows = try Self.pythonRows(path)
        #expect(rows.count == 4)
        #expect(rows.dropFirst().map { $0[2] } == Self.questions)
        #expect(rows[1][3] == "#ねこ #dogs")
        #expect(rows[2][4] == "0" && rows[2][5] == "7")
        #expect(rows.dropFirst().allSatisfy { $0.count == 8 && $0[6].count == 64 && $0[7].count == 64 })
        let shown = try Tenbin.run(["show", "2", "--json"], store: folder.path)
        #expect(shown.stdout.contains("\"createdAt\": \"\(rows[2][1])\""))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("posters.csv.") }
        #expect(leftovers.isEmpty)
    }

    @Test func excelGetsAByteOrderMarkAndNoFormula() throws {
        let folder = try Self.board()
        let path = folder.path + "/excel.csv"
        #expect(try Tenbin.run(["export", "--excel", "-o", path], store: folder.path).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.prefix(3) == Data([0xEF, 0xBB, 0xBF]))
        let rows = try Self.pythonRows(path, encoding: "utf-8-sig")
        #expect(rows[2][2] == "'" + Self.questions[1])
        #expect(rows[1][2] == Self.questions[0], "text that is no formula stays exact")
    }

    @Test func jsonLinesGoToStandardOutput() throws {
        let folder = try Self.board()
        let run = try Tenbin.run(["export", "--format", "jsonl"], store: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        let objects = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count == 3)
        #expect(objects.map { $0["contents"] as? String } == Self.questions)
        #expect(objects[1]["good2"] as? Int == 7)
    }

    @Test func timelinesAreATableOfBucketsInCSVAndAnArrayInJSONLines() throws {
        let folder = try Self.board()
        let path = folder.path + "/timelines.csv"
        let run = try Tenbin.run(["export", "--timelines", "-o", path], store: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try Self.pythonRows(path)
        #expect(rows.first == ["id", "start", "bucket", "good1", "good2"])
        #expect(rows.dropFirst().allSatisfy { $0[0] == "2" && $0[2] == "minute" }, "\(rows)")
        #expect(rows.dropFirst().reduce(0) { $0 + (Int($1[4]) ?? 0) } == 7)
        let lines = try Tenbin.run(["export", "--format", "jsonl", "--timelines"], store: folder.path)
        let objects = lines.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.map { ($0["timeline"] as? [Any])?.count } == [0, rows.count - 1, 0])
    }

    @Test func badExportsAreRefusedWithTheirReasonAndLeaveNothing() throws {
        let folder = try Self.board()
        let excelJSON = try Tenbin.run(["export", "--format", "jsonl", "--excel"], store: folder.path)
        #expect(excelJSON.status == 64)
        #expect(excelJSON.stderr.hasPrefix("Error: '--excel' is for '--format csv'\n"))
        let format = try Tenbin.run(["export", "--format", "xml"], store: folder.path)
        #expect(format.status == 64)
        #expect(format.stderr.hasPrefix("Error: '--format' takes one of csv, jsonl, not 'xml'\n"))
        let missing = try Tenbin.run(["export", "-o", folder.path + "/no/such/folder/x.csv"], store: folder.path)
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: \(folder.path)/no/such/folder/x.csv: cannot write: No such file or directory\n")
        let noStore = try ScratchFolder()
        // As `list` does: no store is an empty board, said so on stderr, and nothing created.
        let empty = try Tenbin.run(["export"], store: noStore.path + "/none")
        #expect(empty.status == 0)
        #expect(empty.stderr.hasPrefix("note: no store at \(noStore.path)/none"))
        #expect(empty.stdout == "id,created,question,hashtags,good1,good2,image1,image2\r\n")
        #expect(!FileManager.default.fileExists(atPath: noStore.path + "/none"))
    }
}

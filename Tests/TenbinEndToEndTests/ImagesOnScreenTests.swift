import Foundation
import Testing

@testable import tenbin

@Suite(.ownThreads, .timeLimit(.minutes(10))) struct ImagesOnScreenTests {
    static let escape = "\u{1B}[38;2;"

    /// A store with the first `count` sample posters, some votes on the first.
    static func store(posters count: Int) throws -> ScratchFolder {
        let folder = try ScratchFolder()
        for sample in SampleFiles.sampleFolders.prefix(count) {
            let run = try Tenbin.run(
                ["post", sample.images[0], sample.images[1], "--text", sample.folder, "--tag", "猫"], store: folder.path)
            #expect(run.status == 0, "\(run.stderr)")
        }
        try Tenbin.run(["vote", "1", "2", "--times", "3"], store: folder.path)
        return folder
    }

    static func visibleWidths(_ text: String) -> [Int] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalImage.visibleWidth(String($0)) }
    }

    @Test func showDrawsBothImagesWithHashtagsAboveAndTheBarBelow() throws {
        let store = try Self.store(posters: 1)
        let run = try Tenbin.run(["show", "1", "--images"], store: store.path, environment: ["COLUMNS": "60"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let firstImageRow = try #require(lines.firstIndex { $0.contains(Self.escape) })
        let hashtags = try #require(lines.firstIndex(of: "#猫"))
        let bar = try #require(lines.firstIndex { $0.hasPrefix("1 ▕") })
        #expect(hashtags < firstImageRow && firstImageRow < bar)
        #expect(lines[bar + 1].hasPrefix("0 votes (0%)") && lines[bar + 1].hasSuffix("3 votes (100%)"))
        #expect(Self.visibleWidths(run.stdout).allSatisfy { $0 <= 60 })
    }

    @Test func listDrawsEveryPosterWithinTheTerminalWidth() throws {
        let store = try Self.store(posters: 3)
        let run = try Tenbin.run(["list", "--images"], store: store.path, environment: ["COLUMNS": "50"])
        #expect(run.status == 0)
        #expect(Self.visibleWidths(run.stdout).allSatisfy { $0 <= 50 })
        #expect(run.stdout.components(separatedBy: "1 ▕").count == 4)
        for id in 1...3 { #expect(run.stdout.contains("#\(id)  ")) }
    }

    @Test func searchDrawsTheMatchingPostersLikeList() throws {
        let store = try Self.store(posters: 3)
        // Every poster has the hashtag 猫; the question of the second names its folder.
        let run = try Tenbin.run(["search", "ＳＵＮＲＩＳＥ", "#猫", "--images"], store: store.path, environment: ["COLUMNS": "50"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(Self.escape))
        #expect(run.stdout.components(separatedBy: "1 ▕").count == 2, "one poster drawn")
        #expect(run.stdout.contains("#2  "))
        #expect(Self.visibleWidths(run.stdout).allSatisfy { $0 <= 50 })
        let both = try Tenbin.run(["search", "猫", "--images", "--json"], store: store.path)
        #expect(both.status == 64)
    }

    @Test func imagesAreOffWhenOutputIsNotATerminal() throws {
        let store = try Self.store(posters: 1)
        let run = try Tenbin.run(["show", "1"], store: store.path, environment: ["COLORTERM": "truecolor", "NO_COLOR": ""])
        #expect(run.status == 0)
        #expect(!run.stdout.contains("\u{1B}"))
    }

    @Test func imagesAreOnByDefaultOnATruecolorTerminal() throws {
        let store = try Self.store(posters: 1)
        let onTerminal = try Self.inTerminal("show 1", store: store.path, environment: ["COLORTERM": "truecolor"])
        #expect(onTerminal.contains(Self.escape))
        let forcedOff = try Self.inTerminal("show 1 --no-images", store: store.path, environment: ["COLORTERM": "truecolor"])
        #expect(!forcedOff.contains(Self.escape) && forcedOff.contains("image 1: jpeg"))
        let noColor = try Self.inTerminal("show 1", store: store.path, environment: ["COLORTERM": "truecolor", "NO_COLOR": "1"])
        #expect(!noColor.contains("\u{1B}"))
        let eightBit = try Self.inTerminal("show 1", store: store.path, environment: ["COLORTERM": ""])
        #expect(!eightBit.contains(Self.escape))
    }

    @Test func listsAreCompactRowsByDefaultEvenOnATruecolorTerminal() throws {
        let store = try Self.store(posters: 3)
        for command in ["list", "search 猫"] {
            let rows = try Self.inTerminal(command, store: store.path, environment: ["COLORTERM": "truecolor"])
            #expect(!rows.contains(Self.escape), "\(command): no pictures")
            #expect(rows.split(whereSeparator: \.isNewline).count == 3, "\(command): one row per poster")
            let drawn = try Self.inTerminal(command + " --images", store: store.path, environment: ["COLORTERM": "truecolor"])
            #expect(drawn.contains(Self.escape), "\(command) --images draws")
        }
    }

    @Test func theDefaultFollowsColortermAndNoColor() {
        #expect(DrawingOptions.truecolor(environment: ["COLORTERM": "truecolor"], terminal: true))
        #expect(DrawingOptions.truecolor(environment: ["COLORTERM": "24bit", "NO_COLOR": ""], terminal: true))
        #expect(!DrawingOptions.truecolor(environment: ["COLORTERM": "truecolor"], terminal: false))
        #expect(!DrawingOptions.truecolor(environment: ["COLORTERM": "truecolor", "NO_COLOR": "1"], terminal: true))
        #expect(!DrawingOptions.truecolor(environment: ["COLORTERM": "truecolor", "TERM": "dumb"], terminal: true))
        #expect(!DrawingOptions.truecolor(environment: [:], terminal: true))
    }

    @Test func conflictingOptionsAreUsageErrors() throws {
        let store = try Self.store(posters: 1)
        let both = try Tenbin.run(["show", "1", "--images", "--no-images"], store: store.path)
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("Error: '--images' and '--no-images' cannot be used together\nUsage: tenbin show"))
        let json = try Tenbin.run(["list", "--images", "--json"], store: store.path)
        #expect(json.status == 64)
        #expect(json.stderr.hasPrefix("Error: '--images' cannot be used with '--json'"))
        let cache = try Tenbin.run(["list", "--images", "--cache-mb", "lots"], store: store.path)
        #expect(cache.status == 64)
        #expect(cache.stderr.hasPrefix("Error: '--cache-mb' takes a whole number"))
        #expect(cache.stdout.isEmpty)
    }

    @Test func aSmallOrEmptyCacheStillDrawsEverything() throws {
        let store = try Self.store(posters: 2)
        let run = try Tenbin.run(["list", "--images", "--cache-mb", "0", "--cache-count", "0"], store: store.path)
        #expect(run.status == 0)
        #expect(run.stdout.components(separatedBy: "1 ▕").count == 3)
    }

    @Test func aMissingImageIsReportedAfterTheRestIsDrawn() throws {
        let store = try Self.store(posters: 1)
        let json = try Tenbin.run(["show", "1", "--json"], store: store.path).stdout
        let digest = try #require(json.firstMatch(of: /"digest": "([0-9a-f]{64})"/)?.output.1)
        try FileManager.default.removeItem(atPath: "\(store.path)/blobs/\(digest.prefix(2))/\(digest)")
        let run = try Tenbin.run(["show", "1", "--images"], store: store.path)
        #expect(run.status == 1)
        #expect(run.stdout.contains("(image 1 unavailable)") && run.stdout.contains(Self.escape))
        #expect(run.stderr.hasPrefix("Error: poster #1, image 1: cannot be drawn: \(store.path)/blobs/"))
    }

    @Test func aMissingPosterFailsTheSameWithImages() throws {
        let store = try Self.store(posters: 1)
        let run = try Tenbin.run(["show", "7", "--images"], store: store.path)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: poster #7: no such poster\n")
    }

    @Test func helpListsTheImageOptions() throws {
        for command in ["show", "list"] {
            let run = try Tenbin.run(["help", command])
            for option in ["--images", "--no-images", "--cache-mb MB", "--cache-count N"] { #expect(run.stdout.contains(option)) }
        }
    }

    /// Runs tenbin on a pseudo-terminal (with `script`) and returns what it printed.
    static func inTerminal(_ arguments: String, store: String, environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(Tenbin.binary)' --store '\(store)' \(arguments)", "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        env["TERM"] = "xterm-256color"
        env["COLUMNS"] = "70"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let run = try Shell.collect(process, what: "tenbin \(arguments) in a terminal")
        #expect(run.status == 0)
        return String(decoding: run.stdout, as: UTF8.self)
    }
}

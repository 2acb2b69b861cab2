import Foundation
import Testing

@Suite(.ownThreads, .timeLimit(.minutes(10))) struct CommandLineTests {
    @Test func aFileNameThatIsNotUTF8IsSaidToBeSoNotToBeMissing() throws {
        let folder = try ScratchFolder()
        let cat = "\(Tenbin.root)/SampleImages/01-cats-or-dogs/1-cat.jpg"
        // A Latin-1 name, as old archives unpack: "café.jpg" with é as the byte 0xE9. Before,
        // tenbin looked for "caf\u{FFFD}.jpg" and said the file did not exist, beside `ls`
        // showing it.
        let script = #"cd "$1" && name=$(printf 'caf\351.jpg') && cp "$2" "$name" && exec "$3" --store s post "$name" "$2""#
        let run = try Shell.capture(["/bin/sh", "-c", script, "sh", folder.path, cat, Tenbin.binary])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(
            run.stderr.hasPrefix(
                "Error: the argument 'caf\u{FFFD}.jpg' is not UTF-8 text (a file name in another encoding? rename it to UTF-8, for example with convmv)\n"
            ), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/s"), "nothing written")
    }

    @Test func versionPrintsTheVersionAlone() throws {
        let run = try Tenbin.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout == "0.1.0\n")
        #expect(run.stderr.isEmpty)
    }

    @Test func helpListsEverySubcommandOnStdout() throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let run = try Tenbin.run(arguments)
            #expect(run.status == 0)
            #expect(run.stdout.contains("OVERVIEW:"))
            #expect(run.stdout.contains("USAGE: tenbin [--store DIR] [--database URL] <subcommand>"))
            for name in ["post", "vote", "list", "show", "image", "delete", "gc", "check"] {
                #expect(run.stdout.contains("\n  \(name) "), "help lists \(name)")
            }
        }
    }

    @Test func helpForACommandShowsItsUsageArgumentsAndOptions() throws {
        for arguments in [["help", "vote"], ["vote", "--help"], ["vote", "-h"]] {
            let run = try Tenbin.run(arguments)
            #expect(run.status == 0)
            #expect(run.stdout.contains("USAGE: tenbin vote ID 1|2 [--times N] [--json]"))
            #expect(run.stdout.contains("ARGUMENTS:"))
            #expect(run.stdout.contains("--times N"))
        }
    }

    @Test(arguments: [
        (["vote", "1"], "Error: missing 1|2"),
        (["vote", "x", "1"], "Error: 'x' is not a poster id (a whole number from 1)"),
        (["vote", "1", "3"], "Error: the side must be 1 or 2, not '3'"),
        (["vote", "1", "1", "--times", "0"], "Error: '--times' takes a whole number from 1 to 1000000000, not '0'"),
        (["list", "--sort", "best"], "Error: '--sort' takes one of new, popular, trending, not 'best'"),
        (["list", "--bogus"], "Error: unknown option '--bogus'"),
        (["show"], "Error: missing ID"),
        (["show", "1", "2"], "Error: unexpected argument '2'"),
        (["frobnicate"], "Error: unknown subcommand 'frobnicate'"),
        (["post", "a.jpg", "b.jpg", "--quality", "0"], "Error: '--quality' takes a whole number from 1 to 100, not '0'"),
    ])
    func usageErrorsExit64WithTheReasonAndTheUsageLine(arguments: [String], message: String) throws {
        let store = try ScratchFolder()
        let run = try Tenbin.run(arguments, store: store.path)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix(message + "\n"))
        #expect(run.stderr.contains("Usage: tenbin"))
        #expect(store.files().isEmpty, "a usage error writes nothing")
    }

    @Test(arguments: [
        (["vote", "1", "1", "--time", "3"], "Error: unknown option '--time'; did you mean '--times'?"),
        (["vote", "1", "1", "--tiems=3"], "Error: unknown option '--tiems'; did you mean '--times'?"),
        (["list", "--jsn"], "Error: unknown option '--jsn'; did you mean '--json'?"),
        (["list", "--limt", "3"], "Error: unknown option '--limt'; did you mean '--limit'?"),
        (["post", "a.jpg", "b.jpg", "--max-sid", "9"], "Error: unknown option '--max-sid'; did you mean '--max-side'?"),
        (["list", "--stor", "x"], "Error: unknown option '--stor'; did you mean '--store'?"),
        (["--stor", "x", "list"], "Error: unknown option '--stor'; did you mean '--store'?"),
        (["lst"], "Error: unknown subcommand 'lst'; did you mean 'list'?"),
        (["help", "serach"], "Error: unknown subcommand 'serach'; did you mean 'search'?"),
        (["vote", "1", "1", "-t", "3"], "Error: unknown option '-t'"),
        (["list", "--zzzzzz"], "Error: unknown option '--zzzzzz'"),
    ])
    func anUnknownNameCloseToAKnownOneSuggestsIt(arguments: [String], message: String) throws {
        let store = try ScratchFolder()
        let run = try Tenbin.run(arguments, store: store.path)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix(message + "\n"), "\(run.stderr)")
        #expect(store.files().isEmpty)
    }

    /// Each command's options are declared once, as typed values; help lists every one of them
    /// and a declaration that is not an option (or a spelling declared twice) stops tenbin
    /// before it runs, so this covers every command.
    @Test func everySubcommandsHelpListsItsOptionsThenTheCommonOnes() throws {
        let commands = ["post", "vote", "list", "show", "image", "delete", "gc", "check", "search", "import", "watch"]
        for command in commands {
            let run = try Tenbin.run(["help", command])
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect(run.stdout.hasPrefix("OVERVIEW: "))
            let optionLines = run.stdout.split(separator: "\n").filter { $0.drop { $0 == " " }.hasPrefix("-") }
            let last = optionLines.suffix(4).map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
            #expect(
                last == ["--store DIR", "--database URL", "--database-pool N", "-h, --help"], "\(command) lists the common options last")
            let parsed = try Tenbin.run([command, "--help"])
            #expect(parsed.stdout == run.stdout)
        }
        let post = try Tenbin.run(["help", "post"]).stdout
        for option in [
            "--text TEXT", "--tag TAG", "--json", "--max-edge PX", "--quality Q", "--max-file-mb MB", "--max-megapixels MP",
            "--max-side PX",
        ] {
            #expect(post.contains("\n  \(option) "), "post lists \(option)")
        }
    }

    @Test func anOptionsValueIsCheckedAsTheCommandReadsIt() throws {
        // The id is read before --times, so a bad id is reported first.
        let run = try Tenbin.run(["vote", "x", "1", "--times", "0"])
        #expect(run.stderr.hasPrefix("Error: 'x' is not a poster id (a whole number from 1)\n"))
        // --help wins over a bad value, as it wins over missing arguments.
        #expect(try Tenbin.run(["vote", "--times", "0", "--help"]).status == 0)
        // A repeatable option keeps every value in order; others refuse a second one.
        #expect(
            try Tenbin.run(["vote", "1", "1", "--times", "2", "--times", "3"]).stderr.hasPrefix(
                "Error: '--times' was given more than once\n"))
        #expect(try Tenbin.run(["list", "--json=yes"]).stderr.hasPrefix("Error: '--json' takes no value\n"))
        #expect(try Tenbin.run(["list", "--limit"]).stderr.hasPrefix("Error: missing value for '--limit N'\n"))
    }

    @Test func noSubcommandPrintsHelpToStderrAndExits64() throws {
        let run = try Tenbin.run([])
        #expect(run.status == 64)
        #expect(run.stderr.contains("USAGE:"))
    }

    @Test func theStoreComesFromTheOptionThenTheEnvironment() throws {
        let fromOption = try ScratchFolder()
        let fromEnvironment = try ScratchFolder()
        let images = [Tenbin.root + "/SampleImages/10-no-question/left.jpg", Tenbin.root + "/SampleImages/10-no-question/right.jpg"]
        #expect(try Tenbin.run(["post"] + images, environment: ["TENBIN_STORE": fromEnvironment.path]).status == 0)
        #expect(try Tenbin.run(["post"] + images + ["--store", fromOption.path]).status == 0)
        #expect(fromOption.files().contains("tenbin.sqlite"))
        #expect(fromEnvironment.files().contains("tenbin.sqlite"))
    }
}

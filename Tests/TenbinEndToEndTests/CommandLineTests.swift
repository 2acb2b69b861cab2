import Foundation
import Testing

@Suite struct CommandLineTests {
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
            #expect(run.stdout.contains("USAGE: tenbin [--store DIR] <subcommand>"))
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
        (["list", "--sort", "best"], "Error: '--sort' takes one of new, popular, not 'best'"),
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

import Foundation
import Testing

@testable import TenbinKit

@testable import tenbin

/// A command's options and arguments are known from the declarations its group makes, in the
/// order its properties are declared, without reflecting the group (``DeclarationLog``).
@Suite struct OptionDeclarationTests {
    @Test func aCommandsDeclarationsAreItsPropertiesInOrder() {
        let vote = VoteCommand.Options.declared()
        #expect(vote.options.map(\.names) == [["--times"], ["--json"]])
        #expect(vote.arguments.map(\.name) == ["ID", "1|2"])
        #expect(vote.options[0].value == "N" && vote.options[1].value == nil)
    }

    @Test func aGroupInsideAGroupContributesItsOptionsInPlace() {
        // `list`: the feed's paging options, then --json, then the drawing options.
        let names = ListCommand.Options.declarations.map(\.primary)
        let feed = FeedOptions.declarations.map(\.primary)
        let drawing = DrawingOptions.Group.declarations.map(\.primary)
        #expect(!feed.isEmpty && !drawing.isEmpty)
        #expect(names == feed + ["--json"] + drawing)
    }

    @Test func declarationsMadeOutsideARecordingAreNotNoted() {
        _ = VoteCommand.Options()  // made, as a parse does, with nothing recording
        let log = DeclarationLog.recording { _ = Flag(["--inside"], help: "") }
        _ = Flag(["--after"], help: "")
        #expect(log.options.map(\.names) == [["--inside"]])
        #expect(VoteCommand.Options.declarations.count == 2)
    }

    @Test func eachThreadRecordsOnlyWhatItMakes() {
        let others = DispatchGroup()
        let log = DeclarationLog.recording {
            for _ in 0..<4 {
                // Made on other threads while this one records: not this log's.
                DispatchQueue.global().async(group: others) { _ = ListCommand.Options() }
            }
            _ = Argument.posterID()
            others.wait()
        }
        #expect(log.arguments.map(\.name) == ["ID"])
        #expect(log.options.isEmpty)
    }

    @Test func aRecordingInsideARecordingLeavesTheOuterOneWhole() {
        let outer = DeclarationLog.recording {
            _ = Flag(["--first"], help: "")
            #expect(VoteCommand.Options.declarations.count == 2)
            _ = Flag(["--second"], help: "")
        }
        #expect(outer.options.map(\.names) == [["--first"], ["--second"]])
    }

    @Test func parsingReadsArgumentsAndOptionsThroughTheDeclarations() throws {
        let spec = VoteCommand.spec
        let parsed = try ParsedArguments<VoteCommand.Options>(["7", "2", "--times=3", "--json"], spec: spec)
        try parsed.expectPositionals()
        #expect(try parsed.id == 7)
        #expect(try parsed.side == .second)
        #expect(try parsed.times == 3)
        #expect(parsed.json)
        #expect(throws: UsageError.self) { try ParsedArguments<VoteCommand.Options>(["7", "2", "--tims", "3"], spec: spec) }
        let missing = try ParsedArguments<VoteCommand.Options>(["7"], spec: spec)
        #expect(throws: UsageError.self) { try missing.expectPositionals() }
    }
}

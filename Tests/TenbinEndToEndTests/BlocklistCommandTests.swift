import Foundation
import Testing

/// `tenbin moderation blocklist` and `tenbin post --scan-command`, run as users run them:
/// entries added from files, listed and removed; a blocked picture, and a copy tenbin itself
/// re-encoded, refused with one error line and nothing stored; scan scripts that accept,
/// refuse and hang.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct BlocklistCommandTests {
    static let cat = Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg"
    static let dog = Tenbin.root + "/SampleImages/01-cats-or-dogs/2-dog.jpg"
    static let morning = Tenbin.root + "/SampleImages/02-sunrise-sunset/morning.jpg"

    /// The files under a store's blob folder.
    static func blobFiles(_ store: ScratchFolder) -> [String] {
        (FileManager.default.enumerator(atPath: store.path + "/blobs")?.allObjects as? [String] ?? []).filter { $0.count > 3 }
    }

    @Test func entriesAreAddedListedAndRemovedAndABlockedPictureIsNotPosted() throws {
        let store = try ScratchFolder()
        let empty = try Tenbin.run(["moderation", "blocklist", "list"], store: store.path)
        #expect(empty.status == 0 && empty.stdout == "The image blocklist is empty.\n")
        let added = try Tenbin.run(["moderation", "blocklist", "add", Self.cat, "--note", "reported twice", "--json"], store: store.path)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.hasPrefix("{\"id\": 1, \"digest\": \""))
        #expect(added.stdout.contains("\"note\": \"reported twice\""))
        #expect(added.stdout.contains(/"perceptualHash": "[0-9a-f]{16}"/))

        let refused = try Tenbin.run(["post", Self.morning, Self.cat], store: store.path)
        #expect(refused.status == 1)
        #expect(refused.stderr == "Error: image '\(Self.cat)' is blocked: it matches entry #1 of the board's image blocklist\n")
        #expect(refused.stdout.isEmpty)
        #expect(Self.blobFiles(store).isEmpty, "nothing half-written")
        #expect(try Tenbin.run(["list", "--json"], store: store.path).stdout == "[]\n")

        let listed = try Tenbin.run(["moderation", "blocklist", "list"], store: store.path)
        #expect(listed.stdout.hasPrefix("#1  "))
        #expect(listed.stdout.hasSuffix("  reported twice\n"))
        let removed = try Tenbin.run(["moderation", "blocklist", "remove", "1"], store: store.path)
        #expect(removed.status == 0 && removed.stdout == "Removed #1 from the image blocklist.\n")
        #expect(try Tenbin.run(["post", Self.morning, Self.cat], store: store.path).status == 0)
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
    }

    @Test func removeWithBlockImagesListsBothPicturesAndThePosterCannotComeBack() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post", Self.cat, Self.dog], store: store.path).status == 0)
        let removed = try Tenbin.run(
            ["moderation", "remove", "1", "--block-images", "--reason", "illegal", "--as", "mod"], store: store.path)
        #expect(removed.status == 0 && removed.stdout == "Removed #1.\n", "\(removed.stderr)")
        let listed = try Tenbin.run(["moderation", "blocklist", "list"], store: store.path).stdout
        #expect(listed.contains("poster #1, image 1\n") && listed.contains("poster #1, image 2\n"))
        let again = try Tenbin.run(["post", Self.morning, Self.dog], store: store.path)
        #expect(again.status == 1)
        #expect(again.stderr == "Error: image '\(Self.dog)' is blocked: it matches entry #2 of the board's image blocklist\n")
        #expect(try Tenbin.run(["moderation", "log"], store: store.path).stdout.contains("remove #1"))
    }

    @Test func aCopyTenbinReencodedIsRefusedByItsPerceptualHash() throws {
        // tenbin's own re-encoding: the cat as one board stores it (JPEG at quality 50).
        let first = try ScratchFolder()
        #expect(try Tenbin.run(["post", Self.cat, Self.dog, "--quality", "30", "--max-edge", "400"], store: first.path).status == 0)
        let stored = try Tenbin.run(["image", "1", "1"], store: first.path)
        #expect(stored.status == 0)
        let copy = first.path + "/copy.jpg"
        try stored.stdoutBytes.write(to: URL(fileURLWithPath: copy))

        let store = try ScratchFolder()
        #expect(try Tenbin.run(["moderation", "blocklist", "add", Self.cat], store: store.path).status == 0)
        let refused = try Tenbin.run(["post", copy, Self.morning], store: store.path)
        #expect(refused.status == 1)
        #expect(refused.stderr == "Error: image '\(copy)' is blocked: it matches entry #1 of the board's image blocklist\n")
        #expect(Self.blobFiles(store).isEmpty)
    }

    @Test func anImportReportsAPosterWithABlockedPictureAsFailedAndGoesOn() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["moderation", "blocklist", "add", Self.cat], store: store.path).status == 0)
        let folder = Tenbin.root + "/SampleImages/01-cats-or-dogs"
        let run = try Tenbin.run(["import", Tenbin.root + "/SampleImages"], store: store.path)
        #expect(run.status == 1)
        #expect(run.stdout.hasPrefix("Imported 9 posters, skipped 0 already on the board; 1 failed."))
        #expect(run.stderr == "Error: \(folder): image '\(Self.cat)' is blocked: it matches entry #1 of the board's image blocklist\n")
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
    }

    @Test func badRequestsAreRefusedWithOneLine() throws {
        let store = try ScratchFolder()
        for (arguments, message) in [
            (["moderation", "blocklist"], "Error: missing a blocklist action: list, add or remove"),
            (["moderation", "blocklist", "frob"], "Error: 'frob' is not a blocklist action; use list, add or remove"),
            (["moderation", "blocklist", "add"], "Error: 'blocklist add' needs at least one FILE"),
            (["moderation", "blocklist", "remove", "x"], "Error: 'x' is not a blocklist entry id (a whole number from 1)"),
            (["post", Self.cat, Self.dog, "--scan-command", " "], "Error: '--scan-command' needs a command, not an empty one"),
        ] {
            let run = try Tenbin.run(arguments, store: store.path)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.hasPrefix(message + "\n"), "\(arguments): \(run.stderr)")
        }
        let truncated = Tenbin.root + "/Tests/Fixtures/hostile/truncated.jpg"
        let bad = try Tenbin.run(["moderation", "blocklist", "add", Self.cat, truncated], store: store.path)
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("Error: \(truncated)"))
        #expect(bad.stderr.split(separator: "\n").count == 1)
        #expect(try Tenbin.run(["moderation", "blocklist", "list", "--json"], store: store.path).stdout == "[]\n")
        let missing = try Tenbin.run(["moderation", "blocklist", "remove", "9"], store: store.path)
        #expect(missing.status == 1 && missing.stderr == "Error: blocklist entry #9: no such entry\n", "\(missing.stderr)")
    }

    @Test func aScanCommandAcceptsRefusesOrTimesOutAndARefusalStoresNothing() throws {
        let store = try ScratchFolder()
        let scripts = try ScratchFolder()
        func script(_ name: String, _ body: String) throws -> String {
            try (body + "\n").write(toFile: "\(scripts.path)/\(name)", atomically: true, encoding: .utf8)
            return "/bin/sh \(scripts.path)/\(name)"
        }
        let refuse = try script("refuse", "echo \"$# images: not on this board\"; exit 1")
        let refused = try Tenbin.run(["post", Self.cat, Self.dog, "--scan-command", refuse], store: store.path)
        #expect(refused.status == 1)
        #expect(refused.stderr == "Error: the images were refused by the board's image scan: 2 images: not on this board\n")

        let hang = try script("hang", "exec sleep 1000")
        let hung = try Tenbin.run(["post", Self.cat, Self.dog, "--scan-command", hang, "--scan-timeout", "1"], store: store.path)
        #expect(hung.status == 1)
        #expect(
            hung.stderr
                == "Error: the images could not be scanned, so the post was not stored: the scan command ran longer than 1 s and was stopped\n"
        )
        #expect(Self.blobFiles(store).isEmpty)

        let accept = try script("accept", "for f in \"$@\"; do [ -s \"$f\" ] || exit 2; done; exit 0")
        let posted = try Tenbin.run(["post", Self.cat, Self.dog, "--scan-command", accept], store: store.path)
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(posted.stdout.hasPrefix("Posted #1."))
    }
}

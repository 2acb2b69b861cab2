import Foundation
import Testing

@testable import TenbinKit

@Suite struct BlobStoreTests {
    let folder: TemporaryStore
    let blobs: BlobStore

    init() throws {
        folder = try TemporaryStore()
        blobs = BlobStore(storeFolder: folder.path)
    }

    @Test func aBlobIsNamedByTheSHA256OfItsBytesInATwoHexFolder() throws {
        let digest = try blobs.write(Array("hello".utf8))
        #expect(digest.hex == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
        #expect(blobs.path(for: digest) == "\(folder.path)/blobs/2c/\(digest.hex)")
        #expect(try blobs.read(digest) == Array("hello".utf8))
    }

    @Test func writingTheSameBytesTwiceStoresOneFileAndLeavesNoTemporaryFile() throws {
        let first = try blobs.write([1, 2, 3])
        let second = try blobs.write([1, 2, 3])
        #expect(first == second)
        let inventory = try blobs.inventory()
        #expect(inventory.digests == [first])
        #expect(inventory.temporaryFiles.isEmpty)
        #expect(inventory.strangers.isEmpty)
    }

    @Test func inventoryTellsBlobsTemporaryFilesAndStrangersApart() throws {
        let digest = try blobs.write([9])
        let folderPath = "\(folder.path)/blobs/\(digest.hex.prefix(2))"
        #expect(FileManager.default.createFile(atPath: "\(folderPath)/.tmp-abc-1-2", contents: Data([1])))
        #expect(FileManager.default.createFile(atPath: "\(folderPath)/notes.txt", contents: Data([1])))
        let inventory = try blobs.inventory()
        #expect(inventory.digests == [digest])
        #expect(inventory.temporaryFiles.map(\.path) == ["\(folderPath)/.tmp-abc-1-2"])
        #expect(inventory.strangers == ["\(folderPath)/notes.txt"])
    }

    @Test func aMissingStoreHasAnEmptyInventory() throws {
        let inventory = try BlobStore(root: folder.path + "/nowhere").inventory()
        #expect(inventory.digests.isEmpty)
    }

    @Test func removingAMissingBlobIsNotAnError() throws {
        let digest = try blobs.write([7])
        try blobs.remove(digest)
        try blobs.remove(digest)
        #expect(!blobs.contains(digest))
    }

    @Test func digestsAcceptOnlySixtyFourLowercaseHexDigits() {
        #expect(Digest(hex: String(repeating: "a", count: 64)) != nil)
        #expect(Digest(hex: String(repeating: "A", count: 64)) == nil)
        #expect(Digest(hex: String(repeating: "a", count: 63)) == nil)
        #expect(Digest(hex: String(repeating: "g", count: 64)) == nil)
        // Each character just outside the digit and letter ranges (a two-byte one too), last.
        for outside in ["/", ":", "`", "g", "F", "é"] {
            #expect(Digest(hex: String(repeating: "0", count: 64 - outside.utf8.count) + outside) == nil)
        }
        #expect(Digest(hex: String(repeating: "0123456789abcdef", count: 4)) != nil)
    }
}

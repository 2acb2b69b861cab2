import Glibc

/// Where a store folder keeps its posters' preview cards: `FOLDER/cards/<id ÷ 1000>/<id>-<face
/// key>.jpg`, beside the blobs (the server draws them, see the server's `PreviewCardFiles`).
/// The layout lives here, in the core, because a card shows a poster's pictures and must go
/// with it whoever deletes the poster: ``Board/delete(id:)`` removes the poster's cards, and
/// ``Board/collectGarbage()`` removes cards of posters no longer on the board (deleted by
/// another process before it removed them, or by an older tenbin) and temporary files of
/// interrupted writes.
package struct PreviewCardFolder: Sendable {
    /// `FOLDER/cards`.
    package let root: String

    /// The cards folder of the store folder `folder`.
    package init(storeFolder folder: String) {
        root = folder + "/cards"
    }

    /// The folder holding `poster`'s cards: a thousand posters to a folder, so finding one
    /// poster's files lists one small folder.
    package func folder(poster: Int64) -> String {
        root + "/\(poster / 1000)"
    }

    /// The name of `poster`'s card file for the face with key `face`.
    package static func name(poster: Int64, face: String) -> String {
        "\(poster)-\(face).jpg"
    }

    /// Where a card is written before it is renamed into place (`mkstemp`'s template).
    package func temporaryTemplate(poster: Int64) -> String {
        folder(poster: poster) + "/\(Self.temporaryPrefix)\(poster)-XXXXXX"
    }

    static let temporaryPrefix = ".tmp-"

    /// The poster a card file's name belongs to, or nil for any other name.
    static func poster(ofFileNamed name: String) -> Int64? {
        guard name.hasSuffix(".jpg"), let dash = name.firstIndex(of: "-") else { return nil }
        return Int64(name[..<dash])
    }

    /// Removes `poster`'s card files other than `kept` (all of them without one), and returns
    /// how many could not be removed.
    @discardableResult
    package func remove(poster: Int64, keeping kept: String? = nil) -> Int {
        let folder = folder(poster: poster)
        let names = (try? BlobStore.entries(of: folder)) ?? nil
        var failures = 0
        for name in names ?? [] where name != kept && Self.poster(ofFileNamed: name) == poster {
            if unlink(folder + "/" + name) != 0 && errno != ENOENT { failures += 1 }
        }
        return failures
    }

    /// What the folder holds: each card file with its poster, and each temporary file with its
    /// age in seconds. Anything else is left alone.
    func inventory() throws -> (cards: [(poster: Int64, path: String)], temporary: [(path: String, age: Int)]) {
        var cards: [(Int64, String)] = []
        var temporary: [(String, Int)] = []
        guard let folders = try BlobStore.entries(of: root) else { return ([], []) }
        let now = time(nil)
        for folder in folders.sorted() where Int64(folder) != nil {
            for name in try BlobStore.entries(of: root + "/" + folder) ?? [] {
                let path = root + "/" + folder + "/" + name
                if let poster = Self.poster(ofFileNamed: name) {
                    cards.append((poster, path))
                } else if name.hasPrefix(Self.temporaryPrefix) {
                    var info = stat()
                    temporary.append((path, stat(path, &info) == 0 ? Int(now - info.st_mtim.tv_sec) : 0))
                }
            }
        }
        return (cards, temporary)
    }
}

extension Board {
    /// The preview cards kept beside this board's blobs, when its blobs are in a store folder.
    package var previewCardFolder: PreviewCardFolder? {
        derivedFilesFolder.map(PreviewCardFolder.init(storeFolder:))
    }

    /// Removes the card files of posters no longer on the board, and temporary card files at
    /// least ``temporaryGrace`` old; returns how many files went.
    func collectCardGarbage() throws -> Int {
        guard let cards = previewCardFolder else { return 0 }
        let (files, temporary) = try cards.inventory()
        var removed = 0
        let ids = Array(Set(files.map(\.poster)))
        var present: Set<Int64> = []
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            present.formUnion(try store.read { try $0.posters(ids: chunk) }.map(\.id))
        }
        for file in files where !present.contains(file.poster) {
            try blobs.removeTemporary(file.path)
            removed += 1
        }
        for file in temporary where file.age >= Self.temporaryGrace {
            try blobs.removeTemporary(file.path)
            removed += 1
        }
        return removed
    }
}

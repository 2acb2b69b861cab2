import Glibc
import TenbinKit

/// Preview cards kept on disk beside the blobs (`FOLDER/cards/<id ÷ 1000>/<id>-<face>.jpg`), so
/// a card survives a restart and is drawn once for every server on the same store's files.
///
/// A file's name says what it shows (the poster and its face's key: images, question, rounded
/// percentages), so a file, once there, is never rewritten: a server that finds it serves it, a
/// server that does not draws the card and writes it under a temporary name in the same folder,
/// then renames it into place (a reader sees no file or the whole one; two servers drawing at
/// once rename identical bytes), and removes that poster's older cards. The layout is the
/// core's (``PreviewCardFolder``): a poster deleted by any process loses its files there, and
/// `gc` removes what a deleting process could not.
///
/// Disk trouble never costs an answer: a folder that cannot be made or written (read-only, full,
/// no permission) leaves the card drawn in memory and served as before, without its file; the
/// failure is counted in ``failures`` and the temporary file, if one was begun, removed.
struct PreviewCardFiles: Sendable {
    /// `FOLDER/cards` and its layout.
    let cards: PreviewCardFolder
    /// Writes or removals that failed (the card was still served).
    let failures = Locked(0)

    /// The cards folder of the store folder `folder`.
    init(storeFolder folder: String) {
        cards = PreviewCardFolder(storeFolder: folder)
    }

    /// The file that holds `poster`'s card showing `face`.
    func path(poster: Int64, face: PreviewCard.Face) -> (folder: String, name: String) {
        (cards.folder(poster: poster), PreviewCardFolder.name(poster: poster, face: face.key))
    }

    /// The kept card, or nil when there is none (or it cannot be read).
    func read(poster: Int64, face: PreviewCard.Face) -> [UInt8]? {
        let (folder, name) = path(poster: poster, face: face)
        let fd = open(folder + "/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }  // read-only: closing cannot lose data
        guard case .success(let bytes) = FileDescriptor.readAll(fd, limit: 8 << 20), !bytes.isEmpty else { return nil }
        return bytes
    }

    /// Keeps `jpeg` as `poster`'s card showing `face` and removes its older ones; on any
    /// failure, counts it and leaves no partial file.
    func write(_ jpeg: [UInt8], poster: Int64, face: PreviewCard.Face) {
        let (folder, name) = path(poster: poster, face: face)
        do {
            try FileSystem.makeFolders(folder)
        } catch {
            failures.withLock { $0 += 1 }
            return
        }
        var template = Array(cards.temporaryTemplate(poster: poster).utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // the buffer is non-empty
        guard fd >= 0 else {
            failures.withLock { $0 += 1 }
            return
        }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)  // mkstemp filled the X's
        // A short write (a full disk) or a failed close (a full disk on NFS) must not be renamed.
        let written = FileDescriptor.writeAll(jpeg, to: fd) == 0
        let closed = close(fd) == 0
        guard written, closed, rename(temporary, folder + "/" + name) == 0 else {
            _ = unlink(temporary)  // best effort: the failure is counted below either way
            failures.withLock { $0 += 1 }
            return
        }
        // The poster's older faces go.
        let failed = cards.remove(poster: poster, keeping: name)
        if failed > 0 { failures.withLock { $0 += failed } }
    }
}

import Glibc
import TenbinKit

/// Writing a user's output file whole or not at all.
enum FileOutput {
    /// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let file = try OutputFile(path: path)
        do {
            try file.write(bytes)
            try file.finish()
        } catch {
            file.abandon()
            throw error
        }
    }
}

/// Where a command's output goes, written in pieces: standard output, or a temporary file
/// beside the named one, made durable and renamed over it once whole.
final class OutputFile {
    private let path: String?
    private let temporary: String?
    private let descriptor: Int32

    /// Standard output when `path` is nil.
    init(path: String?) throws {
        self.path = path
        guard let path else {
            (temporary, descriptor) = (nil, STDOUT_FILENO)
            return
        }
        let temporary = "\(path).tenbin-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CommandFailure("\(path): cannot write: \(String(cString: strerror(errno)))") }
        (self.temporary, self.descriptor) = (temporary, descriptor)
    }

    func write(_ bytes: [UInt8]) throws {
        let failure = FileDescriptor.writeAll(bytes, to: descriptor)
        guard failure == 0 else {
            throw CommandFailure("\(path ?? "standard output"): cannot write: \(String(cString: strerror(failure)))")
        }
    }

    /// Makes the file durable and gives it its name.
    func finish() throws {
        guard let path, let temporary else { return }
        var failure: Int32 = 0
        if fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0 && failure == 0 { failure = errno }
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            _ = unlink(temporary)  // best effort: the real error is reported below
            throw CommandFailure("\(path): cannot write: \(String(cString: strerror(failure)))")
        }
    }

    /// Removes what was written of a file that will not be finished.
    func abandon() {
        guard let temporary else { return }
        _ = close(descriptor)  // the output failed already; that error is the one reported
        _ = unlink(temporary)
    }
}

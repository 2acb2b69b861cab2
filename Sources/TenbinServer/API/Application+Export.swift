import Glibc
import TenbinKit

/// `GET /api/v1/export.csv` and `/api/v1/export.jsonl` (admin token): every poster, as
/// `tenbin export` writes it.
extension Application {
    /// The export in `format`, written on the board executor from one snapshot into a
    /// temporary file that is unlinked at once (nothing is left behind, whatever happens to
    /// the request or the server), then sent from that file: memory stays bounded at any size
    /// of board.
    func export(_ request: Request, format: ExportFormat) throws(APIError) -> Reply {
        let excel = try Self.flag("excel", of: request)
        if excel && format != .csv { throw APIError.badRequest("excel=1 is for export.csv") }
        let options = ExportOptions(format: format, excel: excel, timelines: try Self.flag("timelines", of: request))
        return executor.reply(failure: request.failure) { [gateway] in
            let file = try Self.unlinkedTemporaryFile()
            do {
                try gateway.export(options) { bytes in
                    let failure = FileDescriptor.writeAll(bytes, to: file)
                    if failure != 0 {
                        throw APIError(
                            status: 500, kind: "internal", message: "the export cannot be written: \(String(cString: strerror(failure)))")
                    }
                }
                let size = lseek(file, 0, SEEK_CUR)
                guard size >= 0, lseek(file, 0, SEEK_SET) == 0 else {
                    throw APIError(status: 500, kind: "internal", message: "the export cannot be read back")
                }
                let name = "tenbin-\(options.timelines ? "timelines" : "posters").\(format == .csv ? "csv" : "jsonl")"
                return HTTPResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", format == .csv ? "text/csv; charset=utf-8; header=present" : "application/jsonl; charset=utf-8"),
                        ("Content-Disposition", "attachment; filename=\"\(name)\""), ("Cache-Control", "no-store"),
                    ],
                    body: .file(descriptor: file, size: Int(size)))
            } catch {
                _ = close(file)  // the export failed already; that error is the one answered
                throw error
            }
        }
    }

    /// `?NAME=1` (or `NAME=0`, the default): `excel`, `timelines`.
    private static func flag(_ name: String, of request: Request) throws(APIError) -> Bool {
        switch try request.query()[name] {
        case nil, "0": false
        case "1": true
        case .some: throw APIError.badRequest("\(name) must be 0 or 1")
        }
    }

    /// A file open for reading and writing that no name reaches.
    private static func unlinkedTemporaryFile() throws(APIError) -> Int32 {
        // The system's temporary folder: the export holds no secret the store does not, and
        // its file has no name from the moment it is made.
        let folder = FileSystem.temporaryFolder
        var template = Array("\(folder)/tenbin-export-XXXXXX".utf8CString)
        // The template is a non-empty array: its base address exists.
        let file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard file >= 0 else {
            throw APIError(status: 500, kind: "internal", message: "no temporary file for the export: \(String(cString: strerror(errno)))")
        }
        // mkostemp wrote the file's name into the template; failing to unlink it would leave a
        // file in the temporary folder, nothing worse.
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(file, F_SETFD, FD_CLOEXEC)  // a program the server starts must not inherit it; harmless if refused
        return file
    }
}

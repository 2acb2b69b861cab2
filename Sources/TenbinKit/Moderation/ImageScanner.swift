import Glibc

/// The operator's scanning hook (`--scan-command`): before a post commits, its images, as
/// they will be stored, are written to a fresh temporary folder and handed to a program, whose
/// exit status decides — 0 accepts, 1 refuses with the first line it printed as the reason,
/// anything else (or running past ``timeoutSeconds``, or dying by a signal) refuses with a
/// message saying the scan failed. This is how a CSAM or nudity classifier plugs in.
///
/// The command is run by `/bin/sh -c 'exec COMMAND "$@"'` with the images' paths as its
/// arguments (so it may carry options of its own, and its exit status or the signal that
/// ended it is the program's own, not a shell's), in a process group of its own, with
/// standard input and standard error on /dev/null and the default handling of every signal.
/// When it times out, the whole group is killed; when it ends, whatever it left running in
/// its group is killed too, and the temporary folder is removed either way. It is started
/// with `posix_spawn` and waited for on the calling thread (a server calls it on its board
/// executor, never on an I/O thread).
public struct ImageScanner: Sendable {
    /// The command line, as `sh` reads it; the images' paths follow it.
    public var command: String
    /// How long the command may run before the post is refused and the command killed.
    public var timeoutSeconds: Double

    /// The longest reason kept from the command's first line, in characters.
    static let reasonLimit = 200
    /// How much of the command's output is read; the rest is discarded.
    static let outputLimit = 4096

    /// A hook running `command` with a time limit.
    public init(command: String, timeoutSeconds: Double = 10) {
        self.command = command
        self.timeoutSeconds = timeoutSeconds
    }

    /// An image to hand to the command: its bytes as stored and their format.
    package struct Image: Sendable {
        package var bytes: [UInt8]
        package var format: ImageFormat

        package init(bytes: [UInt8], format: ImageFormat) {
            self.bytes = bytes
            self.format = format
        }
    }

    /// Runs the command on `images` and returns when it accepted them; throws
    /// ``ImageRefusal/refusedByScan(reason:)`` or ``ImageRefusal/scanFailed(_:)``.
    package func scan(_ images: [Image]) throws(ImageRefusal) {
        let base = FileSystem.temporaryFolder
        var template = Array("\(base)/tenbin-scan-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw .scanFailed("cannot make a folder for the images: \(SystemError.message(for: errno))")
        }
        let folder = String(cString: made)
        var paths: [String] = []
        defer {
            for path in paths { _ = unlink(path) }  // each was written by this scan; nothing else to do if gone
            _ = rmdir(folder)  // empty once its files are gone
        }
        for (index, image) in images.enumerated() {
            let path = "\(folder)/image\(index + 1).\(image.format == .jpeg ? "jpg" : "png")"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .scanFailed("cannot write the images for it: \(SystemError.message(for: errno))") }
            paths.append(path)
            let written = FileDescriptor.writeAll(image.bytes, to: descriptor)
            _ = close(descriptor)  // written in full or failed already; the program reads it after
            guard written == 0 else { throw .scanFailed("cannot write the images for it: \(SystemError.message(for: written))") }
        }
        let outcome = try ScanProcess.run(
            arguments: ["/bin/sh", "-c", "exec \(command) \"$@\"", "tenbin-scan"] + paths, timeoutSeconds: timeoutSeconds,
            outputLimit: Self.outputLimit)
        switch outcome.ending {
        case .exited(0): return
        case .exited(1): throw .refusedByScan(reason: Self.reason(from: outcome.output))
        case .exited(let status):
            throw .scanFailed("the scan command exited with status \(status) (0 accepts the images, 1 refuses them)")
        case .signalled(let signal): throw .scanFailed("the scan command was ended by signal \(signal)")
        case .timedOut:
            let seconds = timeoutSeconds == timeoutSeconds.rounded() ? "\(Int(timeoutSeconds))" : ImageLimits.oneDecimal(timeoutSeconds)
            throw .scanFailed("the scan command ran longer than \(seconds) s and was stopped")
        }
    }

    /// The first line of the command's output, without control or formatting characters (it
    /// goes into a log line, a terminal and a JSON answer), trimmed and shortened.
    static func reason(from output: [UInt8]) -> String {
        let line = output.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let text = String(decoding: line, as: UTF8.self)
        var kept = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: kept.append(" ")
            default: kept.append(scalar)
            }
        }
        let trimmed = String(kept).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !trimmed.isEmpty else { return "no reason given" }
        return trimmed.count > reasonLimit ? String(trimmed.prefix(reasonLimit)) + "…" : trimmed
    }
}

import Glibc
import TenbinKit

/// Writes to standard error.
enum Errors {
    /// Writes `text` and a newline. Messages name files and values a user or a poster chose,
    /// so they pass through ``SafeText`` like everything else drawn for people.
    static func write(_ text: String) {
        // Whatever was printed to stdout goes first, so interleaved output keeps its order.
        _ = fflush(nil)  // a failed flush of stdout shows up as missing output, nothing to add here
        // stderr gone: nowhere left to report to.
        _ = FileDescriptor.writeAll(SafeText.terminal(text, lines: .many) + "\n", to: STDERR_FILENO)
    }
}

/// What the command line adds to a library error's message: the library's messages never hold
/// advice for one front end.
enum ErrorHint {
    /// The hint for `error`, or "". Damage (an `internal` failure the library names, such as a
    /// blob file gone from the store) gets the pointer to `tenbin check`; a store that is not a
    /// tenbin store or is too new gets none, since checking it would not help.
    static func of(_ error: any Error) -> String {
        if let copy = error as? CopyError { return of(copy) }
        if let store = error as? StoreError {
            if case .damaged = store.reason { return checkHint }
            return ""
        }
        guard error is any KindedError else { return "" }
        switch ErrorKind.of(error) {
        case .internal: return checkHint
        case .notFound, .invalidInput, .conflict, .unavailable, .limitExceeded: return ""
        }
    }

    static let checkHint = " (run 'tenbin check' to examine the store)"

    /// What a user does about a copy that could not be made or came out different.
    static func of(_ error: CopyError) -> String {
        switch error {
        case .targetNotEmpty: " (if an earlier copy into it was interrupted, add --resume)"
        case .differs: " (run 'tenbin check' on the source, then copy again into an empty store)"
        case .sourceBlob: " (run 'tenbin check' on the source)"
        case .sameStore, .targetUnsound: ""
        }
    }
}

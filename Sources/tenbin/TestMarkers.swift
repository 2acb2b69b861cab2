#if canImport(Glibc)
    import Glibc
#endif

/// Named points a test can see tenbin reach. With `TENBIN_TEST_MARKERS=FILE` in the
/// environment, each point appends its name as one line to FILE; the kill tests use it to
/// prove a `kill -9` landed inside an operation (after its `…:begin`, before its `…:end`).
/// Unset, as it always is outside tests, a point costs one dictionary lookup.
struct TestMarkers: Sendable {
    private let path: String?

    init(environment: [String: String]) {
        path = environment["TENBIN_TEST_MARKERS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Appends `name` and a newline with one write, so lines from several threads never mix.
    func reach(_ name: String) {
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }  // a test's marker file, not the user's data: nothing to report
        _ = FileDescriptor.writeAll(name + "\n", to: fd)  // as above
        _ = close(fd)  // as above
    }
}

import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// What Linux says about this process in `/proc/self`: when it started, the memory it holds
/// and the descriptors it has open, for `/metrics` (`process_start_time_seconds`,
/// `process_resident_memory_bytes`, `process_open_fds`, the names Prometheus' client libraries
/// use). `/proc` is answered by the kernel from memory, so reading it on an I/O thread blocks
/// on no disk. A value the system will not give is nil and left out of the exposition.
struct ProcessStatistics: Sendable {
    /// Seconds since the Unix epoch when the process started.
    var startTimeSeconds: Double?
    /// Bytes of the process resident in memory.
    var residentMemoryBytes: Int?
    /// Descriptors open (sockets, files, pipes).
    var openDescriptors: Int?

    /// The statistics now.
    static func current() -> ProcessStatistics {
        ProcessStatistics(startTimeSeconds: startTime(), residentMemoryBytes: residentMemory(), openDescriptors: openDescriptorCount())
    }

    /// `starttime` of `/proc/self/stat` (clock ticks after boot) plus `btime` of `/proc/stat`
    /// (the boot, in seconds since the epoch).
    private static func startTime() -> Double? {
        guard let stat = text("/proc/self/stat"), let system = text("/proc/stat") else { return nil }
        // The command name (field 2) is in parentheses and may hold spaces: fields are counted
        // after its closing parenthesis, where field 3 (the state) begins.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // starttime is field 22: the 20th after the parenthesis.
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        let boot = system.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap { Double($0.dropFirst(6)) }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard let boot, ticksPerSecond > 0 else { return nil }
        return boot + ticks / ticksPerSecond
    }

    /// The second field of `/proc/self/statm` (resident pages) times the page size.
    private static func residentMemory() -> Int? {
        guard let statm = text("/proc/self/statm") else { return nil }
        let fields = statm.split(separator: " ")
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard fields.count > 1, let pages = Int(fields[1]), pageSize > 0 else { return nil }
        return pages * pageSize
    }

    /// The entries of `/proc/self/fd` (the descriptor that lists them not counted).
    private static func openDescriptorCount() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { _ = closedir(directory) }  // a listing's stream: closing it cannot lose data
        var count = 0
        while let entry = readdir(directory) {
            if entry.nameBytes.first != UInt8(ascii: ".") { count += 1 }
        }
        return max(0, count - 1)
    }

    /// A small `/proc` file's text.
    private static func text(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { _ = close(descriptor) }  // read only: closing cannot lose data
        guard case .success(let bytes) = FileDescriptor.readAll(descriptor, limit: 64 << 10) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

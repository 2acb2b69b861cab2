import Glibc

/// What the machine tenbin runs on offers: cores and memory, read from the system.
package enum Machine {
    /// The cores this thread may run on now (at least 1): its affinity list, which `taskset` or
    /// a container's cpuset may make a few of the machine's cores; the cores online when the
    /// list cannot be read.
    package static var activeCores: Int {
        allowedCores() ?? max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The count of `Cpus_allowed_list` in `/proc/thread-self/status` (`0-3,8,10-11`), nil when
    /// it cannot be read. Swift's Glibc module leaves out `sched_getaffinity`.
    static func allowedCores() -> Int? {
        guard case .success(let bytes) = FileBytes.read("/proc/thread-self/status", limit: 64 * 1024) else { return nil }
        return coreCount(inStatus: bytes[...])
    }

    /// The cores named by the `Cpus_allowed_list:` line of a status file's `text`.
    static func coreCount(inStatus text: ArraySlice<UInt8>) -> Int? {
        let key = Array("Cpus_allowed_list:".utf8)
        guard let start = text.indices.first(where: { text[$0...].starts(with: key) }) else { return nil }
        let line = text[(start + key.count)...].prefix { $0 != UInt8(ascii: "\n") }
        var total = 0
        for range in line.split(separator: UInt8(ascii: ",")) {
            let bounds = range.split(separator: UInt8(ascii: "-")).map { part in
                Int(String(decoding: part.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }, as: UTF8.self))
            }
            guard let low = bounds.first ?? nil, bounds.count <= 2 else { return nil }
            guard let high = bounds.count == 2 ? bounds[1] : low, high >= low else { return nil }
            total += high - low + 1
        }
        return total > 0 ? total : nil
    }

    /// Physical memory in bytes (1 GiB when the system will not say).
    package static var physicalMemory: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return 1 << 30 }
        return pages.multipliedReportingOverflow(by: pageSize).overflow ? Int.max : pages * pageSize
    }
}

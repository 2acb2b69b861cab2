import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// A moment for the server's log, to the millisecond, printed as ISO 8601 in UTC:
/// `2026-11-30T21:11:22.417Z`. Requests close together (and a drain's last answers) need more
/// than the whole seconds a poster's ``Timestamp`` keeps.
package struct LogTime: Sendable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch.
    package let millisecondsSince1970: Int64

    /// The moment `millisecondsSince1970` after the epoch.
    package init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// The current time from the system clock.
    package static func now() -> LogTime {
        var time = timespec()
        _ = clock_gettime(CLOCK_REALTIME, &time)  // cannot fail for CLOCK_REALTIME with a valid pointer
        return LogTime(millisecondsSince1970: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }

    package var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``description``'s UTF-8 bytes (every request's log line starts with them).
    package func write(into bytes: inout [UInt8]) {
        let seconds = millisecondsSince1970 >= 0 ? millisecondsSince1970 / 1000 : (millisecondsSince1970 - 999) / 1000
        let milliseconds = millisecondsSince1970 - seconds * 1000
        Timestamp(secondsSince1970: seconds).write(into: &bytes)
        bytes[bytes.count - 1] = UInt8(ascii: ".")  // in place of its "Z"
        bytes.append(UInt8(ascii: "0") + UInt8(milliseconds / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(milliseconds % 10))
        bytes.append(UInt8(ascii: "Z"))
    }
}

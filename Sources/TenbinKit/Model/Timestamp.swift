import Glibc

/// A moment in whole seconds since 1970-01-01T00:00:00Z, printed as ISO 8601 in UTC.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since the Unix epoch.
    public let secondsSince1970: Int64

    /// Creates a timestamp from seconds since the Unix epoch.
    public init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``description``'s UTF-8 bytes, without the strings building it would take (a
    /// page of posters writes one time per poster).
    package func write(into bytes: inout [UInt8]) {
        let days = secondsSince1970 >= 0 ? secondsSince1970 / 86_400 : (secondsSince1970 - 86_399) / 86_400
        let seconds = secondsSince1970 - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        if (0...9999).contains(year) {
            digits(year, 4)
        } else {
            // Outside four digits: the year as it prints, padded with zeros to four characters.
            let text = String(year)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 4 - text.utf8.count)))
            bytes.append(contentsOf: text.utf8)
        }
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(seconds / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(seconds % 3600 / 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(seconds % 60, 2)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Year, month and day of the proleptic Gregorian calendar for a count of days since
    /// 1970-01-01 (Howard Hinnant's days-to-civil algorithm).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}

extension Timestamp {
    /// The current time from the system clock.
    @Sendable public static func now() -> Timestamp {
        Timestamp(secondsSince1970: Int64(time(nil)))
    }
}

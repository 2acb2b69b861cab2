/// Vote counts written for people. Lists use ``compact(_:)`` so a billion votes take as few
/// columns as ten; a poster's detail uses ``grouped(_:)``; `--json` and the API always carry
/// the exact integer.
package enum CountText {
    /// Suffixes of thousands, millions, billions, trillions, quadrillions.
    private static let units = ["K", "M", "B", "T", "Q"]

    /// At most four characters for any count below 10^18: `999`, `1K`, `1.2K`, `12K`, `999K`,
    /// `1.2M`, `3B`. Rounded down, so the text never claims more than the count: 1,999 is
    /// `1.9K`, 999,999 is `999K`.
    package static func compact(_ count: Int) -> String {
        guard count >= 1000 || count <= -1000 else { return String(count) }
        if count < 0 { return "-" + compact(count == Int.min ? Int.max : -count) }
        var unit = 0
        var scale = 1000
        while unit + 1 < units.count, count / scale >= 1000 {
            unit += 1
            scale *= 1000
        }
        let whole = count / scale
        let tenth = count % scale / (scale / 10)
        return whole < 10 && tenth > 0 ? "\(whole).\(tenth)\(units[unit])" : "\(whole)\(units[unit])"
    }

    /// The exact count with a comma between groups of three digits: `1,234,567`.
    package static func grouped(_ count: Int) -> String {
        let digits = String(count.magnitude)
        var out = count < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }
}

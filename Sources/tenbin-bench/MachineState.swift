import Foundation

/// What else the machine was doing, and how it wakes, printed beside a section's table: both
/// move a run's numbers without any change to tenbin.
enum MachineState {
    /// The 1-minute load average (other programs' demand for the cores), or "?".
    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
    }

    /// How an idle virtual processor wakes, where the guest's `haltpoll` idle driver says: with
    /// `guest_halt_poll_ns` 0 it halts at once and every wake-up (a round trip's answer, a vote
    /// handed between threads) goes through the hypervisor. Nil on other machines.
    private static func idlePolling() -> String? {
        let driver = try? String(contentsOfFile: "/sys/devices/system/cpu/cpuidle/current_driver", encoding: .utf8)
        guard driver?.hasPrefix("haltpoll") == true,
            let text = try? String(contentsOfFile: "/sys/module/haltpoll/parameters/guest_halt_poll_ns", encoding: .utf8),
            let nanoseconds = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        return nanoseconds == 0
            ? "the VM's idle processors halt without polling (haltpoll, guest_halt_poll_ns 0): every wake-up goes through the hypervisor"
            : "the VM's idle processors poll up to \(nanoseconds / 1000) µs before halting (haltpoll, guest_halt_poll_ns \(nanoseconds))"
    }

    /// "Load average …; how idle processors wake." for a section whose numbers are wake-ups
    /// (round trips, votes handed between threads); nil off a haltpoll VM.
    static func wakeUpNote() -> String? {
        idlePolling().map { "Load average \(loadAverage()); \($0)." }
    }
}

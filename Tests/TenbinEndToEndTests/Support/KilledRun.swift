import Foundation

/// A `tenbin` run killed with SIGKILL at a named point it reached, for the crash tests: tenbin
/// appends the points it reaches to a marker file (`TENBIN_TEST_MARKERS`), so a test can kill
/// it inside an operation and prove afterwards that the kill landed there.
struct KilledRun {
    /// The points tenbin reached, in order, as they stood once it was dead.
    let markers: [String]
    /// Whether the process died of the kill (not by finishing first).
    let killed: Bool

    /// Whether the kill landed inside the operation `name`: after `name:begin`, before `name:end`.
    func landedInside(_ name: String) -> Bool {
        killed && markers.contains("\(name):begin") && !markers.contains("\(name):end")
    }

    /// Runs tenbin with `arguments`, waits until a marker line satisfies `point` (or tenbin
    /// ends first), waits `delay` seconds more, then kills it with SIGKILL.
    static func run(_ arguments: [String], markerFile: String, at point: @escaping (String) -> Bool, delay: Double = 0) throws -> KilledRun
    {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TENBIN_STORE")
        environment["TENBIN_TEST_MARKERS"] = markerFile
        let run = try RunningProcess([Tenbin.binary] + arguments, environment: environment)
        func markers() -> [String] {
            ((try? String(contentsOfFile: markerFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        _ = try poll(
            seconds: 120, "tenbin \(arguments.joined(separator: " ")) to reach its marker", seen: { markers().joined(separator: "\n") }
        ) {
            markers().contains(where: point) || !run.process.isRunning ? true : nil
        }
        if delay > 0 { usleep(UInt32(delay * 1_000_000)) }
        if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) }
        _ = try run.finish()
        return KilledRun(markers: markers(), killed: run.process.terminationReason == .uncaughtSignal && run.terminationStatus == SIGKILL)
    }
}

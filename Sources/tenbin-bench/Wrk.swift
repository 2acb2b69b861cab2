import Foundation

/// One run of wrk (Debian's `wrk`) and what it reported.
struct Wrk {
    let url: String
    /// Requests per second.
    let rate: Double
    /// Completed requests.
    let requests: Int
    /// Non-2xx/3xx answers plus socket errors.
    let failures: Int
    let p50: Double
    let p99: Double

    /// Runs `wrk --latency` with two threads (one per core).
    static func run(url: String, connections: Int, seconds: Int, script: String? = nil) throws -> Wrk {
        let (status, text) = try Shell.output(
            ["/usr/bin/wrk", "-t2", "-c\(connections)", "-d\(seconds)s", "--latency", "--timeout", "10s"]
                + (script.map { ["-s", $0] } ?? [])
                + [url])
        guard status == 0, let rate = number(after: "Requests/sec:", in: text) else {
            throw BenchError("wrk failed on \(url): \(text)")
        }
        let requests =
            text.split(separator: "\n").first { $0.contains(" requests in ") }
            .flatMap { Int($0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) } ?? 0
        let non2xx = Int(number(after: "Non-2xx or 3xx responses:", in: text) ?? 0)
        var socketErrors = 0
        if let line = text.split(separator: "\n").first(where: { $0.contains("Socket errors:") }) {
            // "Socket errors: connect 0, read 0, write 0, timeout 0"
            socketErrors = line.split(separator: ",").compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
        }
        return Wrk(
            url: url, rate: rate, requests: requests, failures: non2xx + socketErrors, p50: latency("50%", in: text),
            p99: latency("99%", in: text))
    }

    /// The run with the median rate (its latencies with it).
    static func median(_ runs: [Wrk]) -> Wrk {
        runs.sorted { $0.rate < $1.rate }[runs.count / 2]
    }

    /// A Lua script that votes for side 1 of posters 1…`posters` in turn.
    static func voteScript(posters: Int) -> String {
        """
        local counter = 0
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        wrk.body = '{"side": 1, "times": 1}'
        request = function()
          counter = counter + 1
          return wrk.format(nil, "/api/v1/posters/" .. ((counter % \(posters)) + 1) .. "/votes")
        end

        """
    }

    /// A Lua script that votes for side 1 of posters drawn at random from 1…`posters`.
    static func randomVoteScript(posters: Int) -> String {
        """
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        wrk.body = '{"side": 1, "times": 1}'
        request = function()
          return wrk.format(nil, "/api/v1/posters/" .. math.random(\(posters)) .. "/votes")
        end

        """
    }

    private static func number(after label: String, in text: String) -> Double? {
        guard let range = text.range(of: label) else { return nil }
        return Double(text[range.upperBound...].split(whereSeparator: \.isWhitespace).first ?? "")
    }

    /// A latency line of "Latency Distribution" ("  99%   12.34ms") in seconds.
    private static func latency(_ label: String, in text: String) -> Double {
        guard let line = text.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }),
            let value = line.split(separator: " ").last
        else { return .nan }
        let units: [(String, Double)] = [("us", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60)]
        for (unit, scale) in units where value.hasSuffix(unit) {
            return (Double(value.dropLast(unit.count)) ?? .nan) * scale
        }
        return .nan
    }
}

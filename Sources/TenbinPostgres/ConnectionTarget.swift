import CLibPQ
import TenbinKit

/// Where a PostgreSQL database is: any libpq connection string (`host=… dbname=…`) or URI
/// (`postgres://user@host:port/db?sslmode=require`), and a description of it that never
/// holds a password.
///
/// The string is checked with libpq's own parser when the target is made, so a malformed one
/// fails at once with a message naming what is wrong, and everything shown to a user (errors,
/// logs) is rebuilt from the parsed fields without the password.
package struct ConnectionTarget: Sendable, Hashable, CustomStringConvertible {
    /// The connection string exactly as given (it may hold a password: never show it).
    let conninfo: String
    /// `user@host:port/dbname`, from the fields the string sets; no password.
    package let description: String

    /// Parses `conninfo`; throws a ``PostgresError`` when libpq cannot parse it, and a
    /// ``LibPQUnavailableError`` when libpq cannot be loaded (this is its first use).
    package init(_ conninfo: String) throws {
        try LibPQ.load()
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            let reason = message.map { String(cString: $0) } ?? "out of memory"
            PQfreemem(message)
            throw PostgresError(
                kind: .invalidInput, sqlState: nil,
                message: "the database connection string is not valid: \(Self.scrub(reason, of: conninfo))",
                target: "")
        }
        defer { PQconninfoFree(options) }
        var fields: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { fields[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        self.conninfo = conninfo
        self.description = Self.describe(fields)
    }

    /// `user@host:port/dbname` from the parsed fields; absent parts are left out, so libpq's
    /// defaults (the local socket, the user's name) show as what the string did not say.
    static func describe(_ fields: [String: String]) -> String {
        // A service names the rest in a file libpq reads only when it connects: name the service
        // rather than guess its host.
        if let service = fields["service"], !service.isEmpty, fields["host"] ?? "" == "", fields["hostaddr"] ?? "" == "" {
            return "postgres service " + service
        }
        var text = ""
        if let user = fields["user"], !user.isEmpty { text += user + "@" }
        text += fields["host"].flatMap { $0.isEmpty ? nil : $0 } ?? fields["hostaddr"] ?? "localhost"
        if let port = fields["port"], !port.isEmpty { text += ":" + port }
        if let database = fields["dbname"], !database.isEmpty { text += "/" + database }
        return "postgres://" + text
    }

    /// `message` with any password in `conninfo` (a URI's `:password@`, a `password=value`)
    /// replaced by `***`, for libpq's messages that quote the string back.
    static func scrub(_ message: String, of conninfo: String) -> String {
        // libpq's messages may run over several lines (a hint on the second): one line here.
        let lines = message.split(whereSeparator: { $0 == "\n" }).map { String($0).trimmingCharacters(in: " \t") }
        let trimmed = lines.filter { !$0.isEmpty }.joined(separator: "; ")
        var text = trimmed
        for secret in secrets(in: conninfo) where !secret.isEmpty {
            text = text.replacing(secret, with: "***")
        }
        return text
    }

    /// The password-like pieces of a connection string.
    private static func secrets(in conninfo: String) -> [String] {
        var found: [String] = []
        if let scheme = conninfo.firstRange(of: "://") {
            let rest = conninfo[scheme.upperBound...]
            if let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                found.append(String(rest[rest.index(after: colon)..<at]))
            }
        }
        if let key = conninfo.firstRange(of: "password=") {
            let rest = conninfo[key.upperBound...]
            let end = rest.firstIndex(where: { $0 == " " || $0 == "&" }) ?? rest.endIndex
            found.append(String(rest[..<end]))
        }
        return found
    }
}

extension String {
    /// The string without leading and trailing characters from `set`.
    func trimmingCharacters(in set: String) -> String {
        let drop = Set(set)
        let start = firstIndex { !drop.contains($0) } ?? endIndex
        let end = lastIndex { !drop.contains($0) }.map { index(after: $0) } ?? start
        return start < end ? String(self[start..<end]) : ""
    }
}

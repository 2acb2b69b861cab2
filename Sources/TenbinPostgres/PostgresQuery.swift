/// A statement and the values bound to it, written as one string: each value interpolated
/// appends the next placeholder (`$1`, `$2`, …) to the text and the value to ``binds``, so a
/// value never becomes SQL text and no placeholder is numbered by hand.
///
/// ```swift
/// let rows = try connection.query("SELECT id FROM poster WHERE id = ANY(\(ids)::bigint[]) AND votes > \(least)")
/// ```
///
/// What each interpolation binds (every value goes untyped, so the statement's context types
/// it, as a `$n` written by hand would be):
/// - `String`: text; integers: their decimal text; `nil` (of an optional one): NULL.
/// - `[UInt8]`: `bytea`, in binary format, so it may hold any byte (NUL included).
/// - arrays of integers or strings: an array literal, which needs a cast in the statement
///   (`\(ids)::bigint[]`, `\(words)::text[]`).
/// - a ``Shared`` value: bound once, its one placeholder repeated wherever it is interpolated.
/// - another `PostgresQuery`: its text spliced in, its placeholders renumbered after these.
///
/// `\(unescaped: text)` splices text into the statement as it is: only for constants of
/// tenbin's own (a column list, an expression, a limit written into the text so that a
/// prepared statement's one plan knows it), never for a value from outside.
///
/// The text depends only on how the query was built, never on the values, so a statement
/// prepared by its text (``Connection/queryPrepared(_:binary:)``) keeps its name and plan.
package struct PostgresQuery: Sendable, ExpressibleByStringInterpolation {
    /// The statement's text between placeholders: one more piece than `placeholders`.
    private var pieces: [String] = [""]
    /// Each placeholder's index in `binds`, in the order the placeholders appear.
    private var placeholders: [Int] = []
    /// The values bound, `$1` first.
    package private(set) var binds: [PostgresBind] = []
    /// The ``Shared`` value each bind came from, if any, so that one bound again reuses its placeholder.
    private var sharedBinds: [Shared?] = []

    /// The statement's text, placeholders numbered.
    package var sql: String {
        var text = pieces[0]
        for (place, bind) in placeholders.enumerated() {
            text += "$\(bind + 1)"
            text += pieces[place + 1]
        }
        return text
    }

    /// A statement with no values.
    package init(stringLiteral sql: String) {
        pieces = [sql]
    }

    /// A statement of tenbin's own text, spliced as it is (see `\(unescaped:)`).
    package init(unescaped sql: String) {
        pieces = [sql]
    }

    package init(stringInterpolation: StringInterpolation) {
        self = stringInterpolation.query
    }

    /// Appends `other`'s text, its placeholders numbered after this query's; a ``Shared``
    /// value both hold keeps its one placeholder.
    package mutating func append(_ other: PostgresQuery) {
        let renumbered = zip(other.binds, other.sharedBinds).map { bindIndex($0, shared: $1) }
        pieces[pieces.count - 1] += other.pieces[0]
        placeholders += other.placeholders.map { renumbered[$0] }
        pieces += other.pieces.dropFirst()
    }

    /// Appends a placeholder for `bind` (from `shared`, when it is one).
    private mutating func appendPlaceholder(_ bind: PostgresBind, shared: Shared? = nil) {
        placeholders.append(bindIndex(bind, shared: shared))
        pieces.append("")
    }

    /// `bind`'s index in ``binds``, appended there unless it comes from a ``Shared`` value
    /// bound already.
    private mutating func bindIndex(_ bind: PostgresBind, shared: Shared?) -> Int {
        if let shared, let index = sharedBinds.firstIndex(where: { $0 === shared }) { return index }
        binds.append(bind)
        sharedBinds.append(shared)
        return binds.count - 1
    }

    /// A value bound once however many times one query interpolates it: the same array of
    /// ids in two places of a statement is sent once, under one placeholder.
    package final class Shared: Sendable {
        let bind: PostgresBind

        /// Shares text.
        package init(_ value: String) { bind = .text(value) }
        /// Shares an integer.
        package init<T: BinaryInteger>(_ value: T) { bind = .integer(value) }
        /// Shares bytes (`bytea`).
        package init(_ bytes: [UInt8]) { bind = .bytes(bytes) }
        /// Shares an array of integers (cast it: `::bigint[]`).
        package init<T: FixedWidthInteger & SignedInteger>(_ values: [T]) { bind = .integerArray(values) }
        /// Shares an array of strings (cast it: `::text[]`).
        package init<S: StringProtocol>(_ values: [S]) { bind = .textArray(values) }
    }

    /// Builds a ``PostgresQuery`` from a string literal's pieces and interpolations.
    package struct StringInterpolation: StringInterpolationProtocol {
        var query = PostgresQuery()

        package init(literalCapacity: Int, interpolationCount: Int) {}

        package mutating func appendLiteral(_ literal: String) {
            query.pieces[query.pieces.count - 1] += literal
        }

        /// Binds text.
        package mutating func appendInterpolation(_ value: String) {
            query.appendPlaceholder(.text(value))
        }

        /// Binds text, or NULL.
        package mutating func appendInterpolation(_ value: String?) {
            query.appendPlaceholder(value.map { .text($0) } ?? .null)
        }

        /// Binds an integer.
        package mutating func appendInterpolation<T: BinaryInteger>(_ value: T) {
            query.appendPlaceholder(.integer(value))
        }

        /// Binds an integer, or NULL.
        package mutating func appendInterpolation<T: BinaryInteger>(_ value: T?) {
            query.appendPlaceholder(value.map { .integer($0) } ?? .null)
        }

        /// Binds bytes as `bytea`.
        package mutating func appendInterpolation(_ bytes: [UInt8]) {
            query.appendPlaceholder(.bytes(bytes))
        }

        /// Binds an array of integers (cast it: `::bigint[]`).
        package mutating func appendInterpolation<T: FixedWidthInteger & SignedInteger>(_ values: [T]) {
            query.appendPlaceholder(.integerArray(values))
        }

        /// Binds an array of strings (cast it: `::text[]`).
        package mutating func appendInterpolation<S: StringProtocol>(_ values: [S]) {
            query.appendPlaceholder(.textArray(values))
        }

        /// Binds a shared value, under the placeholder it already has in this query if any.
        package mutating func appendInterpolation(_ shared: Shared) {
            query.appendPlaceholder(shared.bind, shared: shared)
        }

        /// Splices another query: its text, its values bound after the ones before it.
        package mutating func appendInterpolation(_ fragment: PostgresQuery) {
            query.append(fragment)
        }

        /// Splices tenbin's own text as it is: only ever a constant, never a value from outside.
        package mutating func appendInterpolation(unescaped text: String) {
            appendLiteral(text)
        }

        /// Writes an integer into the statement's text (a limit the plan is to know).
        package mutating func appendInterpolation<T: BinaryInteger>(unescaped value: T) {
            appendLiteral(String(value))
        }
    }

    private init() {}
}

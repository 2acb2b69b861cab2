import Testing

@testable import TenbinPostgres

@Suite struct PostgresQueryTests {
    @Test func eachInterpolatedValueBecomesTheNextPlaceholderAndABind() {
        let id: Int64 = 42
        let query: PostgresQuery = "SELECT * FROM poster WHERE id = \(id) AND contents = \("東京 'x'") AND good1 > \(Int32(-3))"
        #expect(query.sql == "SELECT * FROM poster WHERE id = $1 AND contents = $2 AND good1 > $3")
        #expect(query.binds == [.text("42"), .text("東京 'x'"), .text("-3")])
    }

    @Test func aNilValueIsBoundAsNullAndStillTakesItsPlaceholder() {
        let missing: String? = nil
        let present: Int? = 7
        let none: Int64? = nil
        let query: PostgresQuery = "VALUES (\(missing), \(present), \(none), \("after"))"
        #expect(query.sql == "VALUES ($1, $2, $3, $4)")
        #expect(query.binds == [.null, .text("7"), .null, .text("after")])
    }

    @Test func arraysAreBoundAsOneArrayLiteralAndBytesAsBinary() {
        let ids: [Int64] = [1, -2, 3]
        let words = ["a", "b \"c\" \\d", ""]
        let query: PostgresQuery = "SELECT \(ids)::bigint[], \(words)::text[], \([UInt8]([0, 0xFF]))::bytea, \([Int]())::int[]"
        #expect(query.sql == "SELECT $1::bigint[], $2::text[], $3::bytea, $4::int[]")
        #expect(query.binds == [.text("{1,-2,3}"), .text(#"{"a","b \"c\" \\d",""}"#), .bytes([0, 0xFF]), .text("{}")])
        // Quotes and backslashes first, last, side by side, among multi-byte characters; a
        // substring is escaped as its own text.
        let awkward = ["\"", "\\\\", "東\"京\\", "\"\"x\\"]
        #expect(PostgresBind.textArrayLiteral(awkward) == #"{"\"","\\\\","東\"京\\","\"\"x\\"}"#)
        #expect(PostgresBind.textArrayLiteral(["a\"bc".dropFirst(), "d"]) == #"{"\"bc","d"}"#)
        #expect(PostgresBind.bytes([0, 0xFF]).encoded?.format == 1)
        #expect(PostgresBind.text("7").encoded?.bytes == [0x37, 0])
        #expect(PostgresBind.null.encoded == nil)
    }

    @Test func unescapedTextAndIntegersAreSplicedIntoTheStatementWithoutABind() {
        let columns = "p.id, p.contents"
        let query: PostgresQuery = "SELECT \(unescaped: columns) FROM poster p WHERE p.id < \(9) LIMIT \(unescaped: 20)"
        #expect(query.sql == "SELECT p.id, p.contents FROM poster p WHERE p.id < $1 LIMIT 20")
        #expect(query.binds == [.text("9")])
        #expect(PostgresQuery(unescaped: "SELECT 1").sql == "SELECT 1")
        #expect(PostgresQuery(unescaped: "SELECT 1").binds.isEmpty)
    }

    @Test func aSplicedQueryOrAnAppendedOneIsNumberedAfterTheValuesBeforeIt() {
        let condition: PostgresQuery = "(p.votes, p.id) < (\(5), \(Int64(10)))"
        let query: PostgresQuery = "SELECT id FROM poster p WHERE p.contents = \("x") AND \(condition) OFFSET \(3)"
        #expect(query.sql == "SELECT id FROM poster p WHERE p.contents = $1 AND (p.votes, p.id) < ($2, $3) OFFSET $4")
        #expect(query.binds == [.text("x"), .text("5"), .text("10"), .text("3")])
        var built = PostgresQuery(unescaped: "SELECT id FROM poster p WHERE p.contents = ")
        built.append("\("x") AND ")
        built.append(condition)
        built.append(" OFFSET \(3)")
        #expect(built.sql == query.sql)
        #expect(built.binds == query.binds)
    }

    @Test func aSharedValueIsBoundOnceUnderOnePlaceholderWhereverItIsInterpolated() {
        let ids = PostgresQuery.Shared([Int64(4), 5])
        let other = PostgresQuery.Shared([Int64(4), 5])
        let locked: PostgresQuery = "SELECT id FROM poster WHERE id = ANY(\(ids)::bigint[])"
        let query: PostgresQuery = "WITH d AS (SELECT unnest(\(ids)::bigint[]), \(other)::bigint[]) \(locked) AND id <> \(1)"
        #expect(
            query.sql
                == "WITH d AS (SELECT unnest($1::bigint[]), $2::bigint[]) SELECT id FROM poster WHERE id = ANY($1::bigint[]) AND id <> $3")
        #expect(query.binds == [.text("{4,5}"), .text("{4,5}"), .text("1")])
    }

    @Test func theTextDependsOnHowTheQueryIsBuiltNeverOnItsValues() {
        func page(after: Int64?, words: [String]) -> PostgresQuery {
            "SELECT id FROM poster WHERE id < \(after ?? Int64.max) AND key LIKE ALL (\(words)::text[])"
        }
        let first = page(after: nil, words: ["a"])
        let second = page(after: 7, words: ["b", "c", "'; DROP TABLE poster; --"])
        #expect(first.sql == second.sql)
        #expect(Connection.statementName(first.sql) == Connection.statementName(second.sql))
        #expect(first.binds != second.binds)
    }

    @Test(.enabled(if: TestPostgres.isAvailable))
    func aBuiltQueryRunsOnPostgreSQLWithItsValuesBound() throws {
        let connection = try Connection(ConnectionTarget(TestPostgres.freshDatabase()))
        let words = PostgresQuery.Shared(["東京", "it's", "a\"b"])
        let tail: PostgresQuery = "array_length(\(words)::text[], 1), \(Int?.none)::bigint IS NULL"
        let rows = try connection.query(
            "SELECT (\(words)::text[])[\(2)], \(tail), \(unescaped: "'spliced'"), octet_length(\([UInt8]([0, 1, 0]))::bytea)")
        #expect(rows.text(0, 0) == "it's")
        #expect(try rows.int(0, 1) == 3)
        #expect(try rows.bool(0, 2))
        #expect(rows.text(0, 3) == "spliced")
        #expect(try rows.int(0, 4) == 3)
    }
}

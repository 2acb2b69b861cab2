import CSQLite
import Testing

@testable import TenbinSQLite

/// A connection's prepared statements, found again by their text, and SQLite's process-wide
/// settings.
@Suite struct StatementCacheTests {
    @Test func theSameTextGetsTheSameStatementReset() throws {
        let db = try Database(path: ":memory:", mode: .memory)
        let sql = "SELECT ?1 + 1 AS answer_with_a_name_long_enough_to_be_hashed_by_its_end"
        let first = try db.statement(sql)
        #expect(try first.bind(41).first { $0.int(0) } == 42)
        // Built again, in other memory: found by the text, not by where it is.
        let again = try db.statement(String(sql.utf8.map { Character(UnicodeScalar($0)) }))
        #expect(again === first)
        // Reset, with no binding left: an unbound parameter is NULL.
        #expect(try again.first { $0.isNull(0) } == true)
    }

    @Test func textsThatEndAlikeAreDifferentStatements() throws {
        let db = try Database(path: ":memory:", mode: .memory)
        // The same length and the same last 32 bytes and more: the key hashes them alike, and
        // only comparing the whole text tells them apart.
        let end = " AS value, 'the same forty-byte ending of both' AS tail"
        let one = try db.statement("SELECT 1" + end)
        let two = try db.statement("SELECT 2" + end)
        #expect(one !== two)
        #expect(try db.statement("SELECT 1" + end).first { $0.int(0) } == 1)
        #expect(try db.statement("SELECT 2" + end).first { $0.int(0) } == 2)
    }

    @Test func textsOfTheSameCharactersInOtherBytesAreDifferentStatements() throws {
        let db = try Database(path: ":memory:", mode: .memory)
        // é as one scalar, and as e with a combining accent: equal as Swift strings, not as the
        // bytes SQLite is given, which count one character and two.
        let precomposed = "SELECT length('\u{E9}')"
        let decomposed = "SELECT length('e\u{301}')"
        #expect(precomposed == decomposed)
        #expect(try db.statement(precomposed).first { $0.int(0) } == 1)
        #expect(try db.statement(decomposed).first { $0.int(0) } == 2)
        // Two accents in either order: equal strings of equal length, whose different bytes lie
        // before the last 32 that the key hashes, so only the comparison of bytes parts them.
        let tail = " AS marks, 'an ending longer than the hashed part' AS tail"
        let accents = "SELECT hex('a\u{301}\u{316}')" + tail
        let swapped = "SELECT hex('a\u{316}\u{301}')" + tail
        #expect(accents == swapped && accents.utf8.count == swapped.utf8.count)
        #expect(try db.statement(accents).first { $0.text(0) } == "61CC81CC96")
        #expect(try db.statement(swapped).first { $0.text(0) } == "61CC96CC81")
    }

    @Test func sqliteKeepsNoMemoryStatistics() throws {
        let db = try Database(path: ":memory:", mode: .memory)
        try db.execute("CREATE TABLE t (x TEXT); INSERT INTO t VALUES (hex(randomblob(5000)))")
        #expect(try db.statement("SELECT length(x) FROM t").first { $0.int(0) } == 10_000)
        // With statistics kept, every allocation above would be counted (and each taken under
        // a process-wide mutex); tenbin turns them off before its first connection opens.
        #expect(sqlite3_memory_used() == 0)
    }
}

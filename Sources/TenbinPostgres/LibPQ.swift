import CLibPQ
import TenbinKit

/// libpq, which tenbin loads on the first PostgreSQL use rather than links (see
/// Sources/CLibPQ/libpq.c): a process on SQLite never maps it or the twenty libraries it needs.
enum LibPQ {
    /// Loads libpq unless it is already loaded; throws a ``LibPQUnavailableError`` when it
    /// cannot be. Every path to a libpq call passes here first (``ConnectionTarget/init(_:)``).
    static func load() throws {
        var reason = [CChar](repeating: 0, count: Int(TB_LIBPQ_ERROR_CAPACITY))
        guard tb_libpq_load(&reason) == 0 else {
            throw LibPQUnavailableError(reason: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }
}

/// PostgreSQL cannot be used because libpq cannot be loaded (not installed, or too old): the
/// library's name and the loader's reason.
public struct LibPQUnavailableError: KindedError, Sendable {
    /// The loader's message, naming the library (`libpq.so.5`) and why it cannot be loaded.
    public let reason: String

    /// Always `unavailable`: nothing about the request is wrong.
    public var kind: ErrorKind { .unavailable }

    public var description: String { reason }
}

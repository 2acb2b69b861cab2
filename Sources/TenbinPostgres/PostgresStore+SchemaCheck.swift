import TenbinKit

extension PostgresStore {
    /// Throws unless the database is at this tenbin's newest schema, creating and upgrading
    /// nothing: what a command that only reads needs (it must never create tables in a database
    /// it was merely pointed at, nor upgrade one under older servers still running on it).
    package func requireCurrentSchema() throws {
        let version = try schemaVersion()
        let known = PostgresSchema.latestVersion
        if version == 0 { throw StoreError(.noSchema, at: location) }
        if version < known { throw StoreError(.olderSchema(version, known: known), at: location) }
        if version > known { throw StoreError(.newerSchema(version, known: known), at: location) }
    }
}

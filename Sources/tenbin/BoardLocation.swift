import TenbinKit
import TenbinPostgres
import TenbinSQLite

/// Where a board lives, as the command line names it: a store folder, and with PostgreSQL the
/// database. The one place the command line turns these into a ``Board``, for every command,
/// `serve`, `copy` and `backup` alike.
struct BoardLocation {
    /// The store folder: SQLite's `tenbin.sqlite` and `blobs/`; with a database, `blobs/` only.
    var folder: String
    /// The PostgreSQL database holding the posters, or nil for the folder's SQLite database.
    var database: String?
    /// At most this many connections to the database.
    var poolSize = ConnectionPool.defaultSize
    /// Hot standbys of the database that reads go to (`serve --replica`).
    var replicas: [String] = []
    /// How far behind the primary a standby may fall and still be read from.
    var replicaMaxLag = PostgresStore.defaultReplicaMaxLag

    /// What a command does with the board, which decides what opening it may create or upgrade.
    enum Access {
        /// Reads only: creates nothing, and refuses a PostgreSQL database without tenbin's
        /// schema or at an older one ("no tenbin schema in …; run tenbin migrate"). A SQLite
        /// store that does not exist reads as empty.
        case read
        /// Writes to a store that must exist already (a SQLite folder is not created); the
        /// database schema is created or upgraded.
        case write
        /// Writes, creating the store folder and the schema when missing, upgrading an older one.
        case create
        /// A server: creates the store and schema when missing, but upgrades an older schema only
        /// with `migrate`, so that starting a newer server never migrates under older ones still
        /// running on the same database.
        case serve(migrate: Bool)
    }

    /// Opens the board for `access`.
    func open(_ access: Access, configuration: Board.Configuration = Board.Configuration()) throws -> Board {
        let creates: Bool
        switch access {
        case .read, .write: creates = false
        case .create, .serve: creates = true
        }
        guard let database else { return try Board(folder: folder, configuration: configuration, create: creates) }
        let store = try PostgresStore(
            url: database, poolSize: poolSize, migrate: false, replicas: replicas, replicaMaxLag: replicaMaxLag)
        do {
            switch access {
            case .read:
                try store.requireCurrentSchema()
            case .write, .create:
                try store.migrate()
            case .serve(let migrate):
                let version = try store.schemaVersion()
                if version > 0 && version < PostgresSchema.latestVersion && !migrate {
                    throw StoreError(.olderSchema(version, known: PostgresSchema.latestVersion), at: store.location)
                }
                try store.migrate()
            }
            // The blob folder is made on first write, as SQLite's store folder is (the blob store
            // makes only `blobs/` inside it).
            if creates { try FileSystem.makeFolders(folder) }
        } catch {
            store.close()
            throw error
        }
        return Board(configuration, store: store, blobs: BlobStore(storeFolder: folder))
    }
}

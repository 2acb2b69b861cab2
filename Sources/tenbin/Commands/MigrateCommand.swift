import TenbinKit
import TenbinPostgres

/// `tenbin migrate`
enum MigrateCommand: Command {
    static let spec = CommandSpec(
        name: "migrate",
        abstract: "Create or upgrade the store's database schema.",
        usage: "[--database URL]",
        discussion: """
            Each schema version runs in its own transaction and is recorded in the database; two \
            processes migrating at once take turns. Commands that write also migrate on first use; \
            commands that only read never do, and serve upgrades an older schema only with --migrate. \
            With SQLite (no --database), opening the store folder upgrades it.
            """
    )

    static func run(_ arguments: ParsedArguments<NoOptions>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        guard let url = context.databaseURL else {
            try context.withBoard(.create) { _ in }
            Output.line("The store at \(SafeText.terminal(context.storePath)) is up to date.")
            return 0
        }
        let store = try PostgresStore(url: url, poolSize: 1, migrate: false)
        defer { store.close() }
        let applied = try store.migrate()
        let version = try store.schemaVersion()
        if applied.isEmpty {
            Output.line("\(store.location) is up to date (schema version \(version)).")
        } else {
            let steps = applied.map(String.init).joined(separator: ", ")
            Output.line("\(store.location): applied schema version\(applied.count == 1 ? "" : "s") \(steps); now at \(version).")
        }
        return 0
    }
}

import Dispatch
import TenbinKit

/// Tells every process listening that something was committed: a NOTIFY on the channel
/// ``ChangeNotifier/channel``, sent after the change's own transaction has committed (a
/// NOTIFY takes a global lock at commit, so it never rides in a vote's transaction).
///
/// Sends are batched per process: while one NOTIFY is being sent, every change reported
/// meanwhile waits and goes out in the next one. The payload is the changed poster ids,
/// comma-separated, or `*` when they would not fit well under PostgreSQL's 8,000-byte limit,
/// then `@` and the primary's log position as the NOTIFY is sent (bytes, as
/// ``ReplicaSet/primaryPositionSQL`` reads it): past the commits announced, so a server reading
/// from hot standbys knows how far one must have replayed to show them.
final class ChangeNotifier: Sendable {
    /// The channel tenbin's changes are announced on.
    static let channel = "tenbin_changes"
    /// The longest payload sent (PostgreSQL refuses 8,000 bytes and more).
    static let maximumPayload = 7_000

    private let pool: ConnectionPool
    private let queue = DispatchQueue(label: "tenbin.postgres.notify")
    /// Ids waiting to be announced (`all` when too many or unknown), and whether a send is queued.
    private let pending = Locked((ids: Set<Int64>(), all: false, scheduled: false))

    init(pool: ConnectionPool) {
        self.pool = pool
    }

    /// Announces that these posters changed (or, with no ids, that something did).
    func changed(_ ids: [Int64]) {
        let schedule = pending.withLock { state -> Bool in
            if ids.isEmpty { state.all = true } else { state.ids.formUnion(ids) }
            if state.ids.count > 1_000 { state.all = true }
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule { queue.async { self.sendPending() } }
    }

    /// Sends until nothing is pending. A failure (the database is down) is dropped: listeners
    /// re-read everything when they reconnect, which is exactly what they would have missed.
    private func sendPending() {
        while true {
            let batch = pending.withLock { state -> (ids: Set<Int64>, all: Bool)? in
                guard state.all || !state.ids.isEmpty else {
                    state.scheduled = false
                    return nil
                }
                defer { state = (ids: [], all: false, scheduled: true) }
                return (state.ids, state.all)
            }
            guard let batch else { return }
            var payload = batch.all ? "*" : batch.ids.sorted().map(String.init).joined(separator: ",")
            if payload.utf8.count > Self.maximumPayload { payload = "*" }
            // A failed NOTIFY means the database is unreachable; see above.
            _ = try? pool.withConnection {
                try $0.query(
                    "SELECT pg_notify(\(Self.channel), \(payload)::text || '@' || (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint::text)")
            }
        }
    }

    /// Waits until every change reported so far has been sent (tests, and before exiting).
    func flush() {
        queue.sync {}
        while pending.withLock({ $0.scheduled }) { queue.sync {} }
    }
}

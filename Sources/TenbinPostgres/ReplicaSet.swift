import Dispatch
import TenbinKit

/// Hot standbys a store reads from (`tenbin serve --replica URL`), and what keeps those reads
/// exact: no reader is shown less than it was shown before, or less than a write it made.
///
/// **The floor.** A write-ahead-log position every read of this process must see at least. It
/// rises to the primary's position after each commit made here (a vote batch, a post), to the
/// position a notification from another server carries (``ChangeNotifier`` sends the primary's
/// position after the commit it announces) before live feeds wake, and to the primary's
/// position after each read the primary answered. A read goes to a standby only once the
/// standby has replayed as far as the floor (`pg_last_wal_replay_lsn()`, asked on the read's own
/// connection when what that connection last learnt is behind the floor); else the primary
/// answers. So a voter's
/// next page shows its vote, and a feed, which reads after it learnt of a change, never shows a
/// count older than one it showed.
///
/// **One standby at a time.** A process reads from the first standby in rotation, counted from
/// one picked at random when the store opens (several servers spread over several standbys),
/// and moves to the next only when that one leaves rotation: two standbys replay at different
/// speeds, and reads alternating between them could show a count and then an older one. Before
/// a standby is taken out the floor rises to the primary's position, which is past anything the
/// standby could have shown.
///
/// **Rotation.** A monitor asks the primary its position and each standby its replayed position
/// a few times a second (``checkInterval``). A standby is in rotation while it answers, is in
/// recovery, and has replayed everything the primary had written ``maxLag`` ago; a read that
/// fails on it (a stopped or restarting standby) takes it out at once and is answered by the
/// primary instead, so no client sees the failure; a read cancelled by replay (a recovery
/// conflict) is answered by the primary and leaves the standby in rotation. It comes back at the first check that
/// finds it caught up.
final class ReplicaSet: Sendable {
    /// The standbys, in the order given.
    let replicas: [Replica]
    /// How far behind a standby may fall and stay in rotation.
    let maxLag: Duration
    private let primary: ConnectionPool
    /// The first standby tried (see the type's summary).
    private let preferred: Int
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "tenbin.postgres.replicas")

    private struct State {
        /// The floor (see the type's summary), in bytes of the log.
        var floor: Int64 = 0
        /// Set when a commit's position could not be read: every read goes to the primary until
        /// a position read after that (``epoch`` moved past it) raises the floor.
        var floorUnknownAt: Int?
        /// Counts the floor's unknown spells.
        var epoch = 0
        /// The primary's positions at the monitor's recent checks, oldest first.
        var samples: [(at: ContinuousClock.Instant, position: Int64)] = []
        /// Reads the primary answered while standbys were configured.
        var primaryReads = 0
        var stopped = false
    }

    /// The longest wait between two checks of the standbys.
    static let longestCheckInterval = Duration.milliseconds(200)

    /// How often the monitor checks: a quarter of the lag allowed, at most every 200 ms.
    var checkInterval: Duration { max(min(maxLag / 4, Self.longestCheckInterval), .milliseconds(5)) }

    /// Standbys at `targets` (each read through its own pool of `poolSize` connections) of the
    /// primary behind `primary`; checks each once before returning (one that does not answer
    /// starts out of rotation) and throws a ``PostgresError`` (kind `invalidInput`) naming a
    /// standby that answers but is no hot standby, or is the standby of another cluster.
    init(targets: [ConnectionTarget], poolSize: Int, maxLag: Duration, primary: ConnectionPool) throws {
        self.replicas = targets.map { Replica(target: $0, pool: ConnectionPool(target: $0, size: poolSize)) }
        self.maxLag = maxLag
        self.primary = primary
        self.preferred = targets.isEmpty ? 0 : Int.random(in: 0..<targets.count)
        let primaryCluster = try? primary.withConnection { try Self.clusterIdentifier(on: $0) }
        for replica in replicas {
            guard let status = try? replica.pool.withConnection({ try Self.status(on: $0) }) else { continue }
            guard status.inRecovery else {
                throw PostgresError(
                    kind: .invalidInput, sqlState: nil,
                    message:
                        "--replica \(replica.target.description) is not a hot standby: it is not in recovery (pg_is_in_recovery() is false)",
                    target: "")
            }
            if let primaryCluster, let cluster = status.cluster, cluster != primaryCluster {
                throw PostgresError(
                    kind: .invalidInput, sqlState: nil,
                    message: "--replica \(replica.target.description) is a standby of another cluster, not of the database's",
                    target: "")
            }
        }
        check()
        scheduleCheck()
    }

    /// Stops the monitor and closes the standbys' connections.
    func close() {
        state.withLock { $0.stopped = true }
        queue.sync {}
        for replica in replicas { replica.pool.close() }
    }

    // MARK: Reads

    /// Runs `body` (one read) on a connection of a standby in rotation that has replayed as far
    /// as the floor, else on the primary (and then raises the floor to the primary's position).
    /// A standby that fails is taken out of rotation and the primary answers instead; so does
    /// one that has not replayed the mark a walk's cursor carries (its vote log then refuses
    /// the mark, and the primary judges it).
    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        if let replica = candidate() {
            do {
                let floor = state.withLock { $0.floor }
                let value = try replica.pool.withConnection { connection -> T? in
                    // Per connection: a standby that restarted replays again from an earlier
                    // point, but its old connections are gone with it.
                    if connection.replayedAtLeast < floor {
                        connection.replayedAtLeast = try Self.replayPosition(on: connection)
                        replica.observe(replayed: connection.replayedAtLeast)
                        guard connection.replayedAtLeast >= floor else { return nil }
                    }
                    return try body(connection)
                }
                if let value {
                    replica.countRead()
                    return value
                }
            } catch let error as PostgresError where error.isRetryable {
                // A query cancelled by replay (a recovery conflict): the standby is fine, this
                // read is the primary's.
            } catch let error as PostgresError where Self.isStandbyTrouble(error) {
                takeOut(replica, because: error.message)
            } catch BoardError.invalidCursor {
                // The standby has not replayed the walk's mark; the primary has, or refuses it.
            }
        }
        return try primary.withConnection { connection in
            state.withLock { $0.primaryReads += 1 }
            let epoch = state.withLock { $0.epoch }
            let value = try body(connection)
            raiseFloor(to: try Self.primaryPosition(on: connection), epoch: epoch)
            return value
        }
    }

    /// The standby reads go to now, if any.
    private func candidate() -> Replica? {
        guard state.withLock({ $0.floorUnknownAt == nil }) else { return nil }
        for offset in 0..<replicas.count {
            let replica = replicas[(preferred + offset) % replicas.count]
            if replica.isInRotation { return replica }
        }
        return nil
    }

    /// Whether a standby's failure is the standby's trouble (down, starting, restarting), which
    /// takes it out of rotation while the primary answers instead.
    static func isStandbyTrouble(_ error: PostgresError) -> Bool {
        error.isConnectionFailure || error.kind == .unavailable
    }

    // MARK: The floor

    /// Raises the floor to the primary's position after a commit made on `connection` (which
    /// is past that commit's record). When the position cannot be read, reads go to the primary
    /// until one is: the commit is made, and must not be reported as failed.
    func noteCommit(on connection: Connection) {
        let epoch = state.withLock { $0.epoch }
        if let position = try? Self.primaryPosition(on: connection) {
            raiseFloor(to: position, epoch: epoch)
        } else {
            state.withLock { state in
                state.epoch += 1
                state.floorUnknownAt = state.epoch
            }
        }
    }

    /// ``noteCommit(on:)`` on a connection of the primary's pool.
    func noteCommit() {
        do {
            try primary.withConnection { noteCommit(on: $0) }
        } catch {
            state.withLock { state in
                state.epoch += 1
                state.floorUnknownAt = state.epoch
            }
        }
    }

    /// Raises the floor to `position`, learnt from a notification or a check of the primary's
    /// snapshot; nil (an announcement without one, or listening again after a gap): to the
    /// primary's position now.
    func learn(_ position: Int64?) {
        if let position { return raiseFloor(to: position, epoch: nil) }
        noteCommit()
    }

    /// Raises the floor to `position`, read on the primary after the epoch `epoch` began (nil:
    /// known to be past every commit made so far here, as an announcement's position is not).
    private func raiseFloor(to position: Int64, epoch: Int?) {
        state.withLock { state in
            state.floor = max(state.floor, position)
            if let unknown = state.floorUnknownAt, let epoch, epoch >= unknown { state.floorUnknownAt = nil }
        }
    }

    // MARK: Rotation

    /// Takes `replica` out of rotation, first raising the floor past anything it could have
    /// shown (the next standby must have replayed as far).
    private func takeOut(_ replica: Replica, because reason: String) {
        if replica.isInRotation { noteCommit() }
        replica.setOut(reason: reason)
    }

    private func scheduleCheck() {
        let interval = checkInterval
        let nanoseconds = interval.components.seconds * 1_000_000_000 + interval.components.attoseconds / 1_000_000_000
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
            guard let self, !self.state.withLock({ $0.stopped }) else { return }
            self.check()
            self.scheduleCheck()
        }
    }

    /// One check: the primary's position, then each standby's; each is put in or taken out of
    /// rotation by what it answers.
    func check() {
        guard let position = try? primary.withConnection({ try Self.primaryPosition(on: $0) }) else {
            // Without the primary nothing can be compared; the standbys stay as they are.
            return
        }
        let now = ContinuousClock.now
        let keep = maxLag * 2 + checkInterval * 4
        let samples = state.withLock { state in
            state.samples.append((now, position))
            while state.samples.count > 1, let first = state.samples.first, now - first.at > keep { state.samples.removeFirst() }
            return state.samples
        }
        for replica in replicas {
            let status: Status
            do {
                status = try replica.pool.withConnection { try Self.status(on: $0) }
            } catch let error as PostgresError {
                takeOut(replica, because: error.message)
                continue
            } catch {
                takeOut(replica, because: "\(error)")
                continue
            }
            guard status.inRecovery else {
                takeOut(replica, because: "it is not in recovery (promoted, or not a standby)")
                continue
            }
            replica.observe(replayed: status.replayed)
            // Behind by how long: since the primary first had written past what it replayed.
            let lag = samples.first { $0.position > status.replayed }.map { ContinuousClock.now - $0.at } ?? .zero
            replica.setLag(lag)
            if lag > maxLag {
                takeOut(replica, because: "it lags by \(lag) (more than --replica-max-lag \(maxLag))")
            } else {
                replica.setIn()
            }
        }
    }

    // MARK: Statements

    /// What a check learns of a standby.
    struct Status {
        var inRecovery: Bool
        var replayed: Int64
        var cluster: String?
    }

    static func status(on connection: Connection) throws -> Status {
        let rows = try connection.query(
            "SELECT pg_is_in_recovery(), COALESCE((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, 0)")
        let cluster = try? clusterIdentifier(on: connection)
        return Status(inRecovery: rows.text(0, 0) == "t", replayed: try rows.int64(0, 1), cluster: cluster)
    }

    /// The cluster's identifier, shared by a primary and its standbys.
    static func clusterIdentifier(on connection: Connection) throws -> String {
        try connection.query("SELECT system_identifier::text FROM pg_control_system()").text(0, 0)
    }

    /// How far a standby has replayed the log, in bytes.
    static func replayPosition(on connection: Connection) throws -> Int64 {
        try connection.query("SELECT COALESCE((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, 0)").int64(0, 0)
    }

    /// How far the primary has written the log, in bytes: past every commit it has answered.
    static func primaryPosition(on connection: Connection) throws -> Int64 {
        try connection.query(PostgresQuery(unescaped: primaryPositionSQL)).int64(0, 0)
    }

    /// The primary's position as a `bigint` expression.
    static let primaryPositionSQL = "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint"

    // MARK: Metrics

    /// The standbys' state in Prometheus' text format.
    var metricsText: String {
        var out = "# HELP tenbin_postgres_replica_up Whether reads may go to the standby (1) or it is out of rotation (0).\n"
        out += "# TYPE tenbin_postgres_replica_up gauge\n"
        let states = replicas.map { ($0.target.description, $0.snapshot) }
        for (name, replica) in states {
            out += "tenbin_postgres_replica_up{replica=\"\(Self.label(name))\"} \(replica.inRotation ? 1 : 0)\n"
        }
        out += "# HELP tenbin_postgres_replica_lag_seconds How long ago the primary had written what the standby has not replayed.\n"
        out += "# TYPE tenbin_postgres_replica_lag_seconds gauge\n"
        for (name, replica) in states {
            let seconds = Double(replica.lag.components.seconds) + Double(replica.lag.components.attoseconds) / 1e18
            out += "tenbin_postgres_replica_lag_seconds{replica=\"\(Self.label(name))\"} \(seconds)\n"
        }
        out += "# HELP tenbin_postgres_replica_reads_total Reads the standby answered.\n"
        out += "# TYPE tenbin_postgres_replica_reads_total counter\n"
        for (name, replica) in states { out += "tenbin_postgres_replica_reads_total{replica=\"\(Self.label(name))\"} \(replica.reads)\n" }
        out += "# HELP tenbin_postgres_replica_removals_total Times the standby was taken out of rotation.\n"
        out += "# TYPE tenbin_postgres_replica_removals_total counter\n"
        for (name, replica) in states {
            out += "tenbin_postgres_replica_removals_total{replica=\"\(Self.label(name))\"} \(replica.removals)\n"
        }
        let primaryReads = state.withLock { $0.primaryReads }
        out += "# HELP tenbin_postgres_primary_reads_total Reads the primary answered while standbys were configured.\n"
        out += "# TYPE tenbin_postgres_primary_reads_total counter\ntenbin_postgres_primary_reads_total \(primaryReads)\n"
        return out
    }

    /// `text` as a Prometheus label value.
    private static func label(_ text: String) -> String { PrometheusLabel.escaped(text) }
}

/// One hot standby: its pool and its state in rotation.
final class Replica: Sendable {
    /// The standby.
    let target: ConnectionTarget
    /// Its connections.
    let pool: ConnectionPool
    private let state = Locked(Snapshot())

    /// What is known of the standby.
    struct Snapshot {
        /// Whether reads may go to it.
        var inRotation = false
        /// How far it had replayed when last asked.
        var replayed: Int64 = 0
        /// How far behind it was at the last check.
        var lag = Duration.zero
        /// Why it is out of rotation.
        var reason: String? = "not checked yet"
        var reads = 0
        var removals = 0
    }

    init(target: ConnectionTarget, pool: ConnectionPool) {
        self.target = target
        self.pool = pool
    }

    var snapshot: Snapshot { state.withLock { $0 } }
    var isInRotation: Bool { state.withLock { $0.inRotation } }
    var replayed: Int64 { state.withLock { $0.replayed } }

    func observe(replayed position: Int64) { state.withLock { $0.replayed = position } }
    func countRead() { state.withLock { $0.reads += 1 } }
    func setLag(_ lag: Duration) { state.withLock { $0.lag = lag } }

    func setIn() {
        state.withLock { state in
            state.inRotation = true
            state.reason = nil
        }
    }

    func setOut(reason: String) {
        state.withLock { state in
            if state.inRotation { state.removals += 1 }
            state.inRotation = false
            state.reason = reason
        }
    }
}

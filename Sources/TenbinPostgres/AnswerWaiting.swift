import CLibPQ
import Synchronization
import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// How a process's threads wait for PostgreSQL's answers: a thread that is the process's only
/// one waiting reads its answer as it arrives, for a short while, before it sleeps.
///
/// Why: a thread that sleeps in `poll()` for a short statement's answer lets its processor go
/// idle, and on a virtual machine waking an idle processor is the hypervisor's work, paid on
/// every round trip. On this project's 2-core VM a prepared `SELECT 1` took 0.15–0.20 ms
/// asleep and 0.04–0.07 ms read as it arrived, and a page of 20 posters at a million took
/// 15–24 % less time (docs/benchmarks.md, "Reading the answer as it arrives").
///
/// What it costs, and how that is kept small:
/// - The waiting thread uses its processor while it waits, at most ``limitNanoseconds``: a
///   statement that takes longer costs that much processor time more, then waits asleep.
/// - It yields the processor at every check, so any other runnable thread there (the
///   database's own backend on a shared machine) runs first.
/// - Only a thread that is its process's one statement in flight spins, and only once the
///   last ``calmSends`` statements were each sent alone too. Under load, when threads wait
///   for several at once, they all sleep as before: no processor is held for them while work
///   waits, and a moment's lull between busy statements does not start a spin.
/// - A process that may run on one processor only never spins: the answer may need it.
package final class AnswerWaiting: Sendable {
    /// Every connection's, unless a test makes its own.
    package static let process = AnswerWaiting(limitNanoseconds: defaultLimit)

    /// From `TENBIN_POSTGRES_SPIN` (microseconds, 0 never), else 250 µs when the process may run
    /// on two processors or more (its affinity: `taskset` or a container's cpuset may allow
    /// one of many), else 0.
    static var defaultLimit: Int {
        if let text = getenv("TENBIN_POSTGRES_SPIN"), let microseconds = Int(String(cString: text)), microseconds >= 0 {
            return microseconds * 1_000
        }
        return Machine.activeCores > 1 ? 250_000 : 0
    }

    /// How long a thread reads for its answer before it sleeps, in nanoseconds; 0 never.
    package let limitNanoseconds: Atomic<Int>
    /// Statements sent and not yet answered, on every connection that waits this way.
    private let inFlight = Atomic<Int>(0)
    /// How many statements in a row were sent while no other was in flight.
    private let alone = Atomic<Int>(0)
    /// How many of those it takes before a thread spins. With 8 threads reading pages at once,
    /// spinning whenever a statement happened to be alone cost 5 % of the pages a second
    /// (docs/benchmarks.md).
    static let calmSends = 4
    /// Waits that read as the answer arrived, and how many of those had it before the limit.
    package let spins = Atomic<Int>(0)
    package let answeredSpinning = Atomic<Int>(0)

    package init(limitNanoseconds: Int) {
        self.limitNanoseconds = Atomic(limitNanoseconds)
    }

    /// Before a statement is sent.
    func begin() {
        if inFlight.add(1, ordering: .relaxed).oldValue == 0 {
            alone.add(1, ordering: .relaxed)
        } else {
            alone.store(0, ordering: .relaxed)
        }
    }

    /// Once its answer is read (or it failed).
    func end() { inFlight.subtract(1, ordering: .relaxed) }

    /// Between the two, once it is sent: reads the answer on `connection` as it arrives when
    /// this is the one statement in flight, until it is there or the limit passes; the caller
    /// then reads it with `PQgetResult`, which sleeps for whatever has not arrived.
    func spinForAnswer(on connection: OpaquePointer) {
        let limit = limitNanoseconds.load(ordering: .relaxed)
        guard limit > 0, inFlight.load(ordering: .relaxed) == 1, alone.load(ordering: .relaxed) >= Self.calmSends else { return }
        spins.add(1, ordering: .relaxed)
        if tb_pq_await(connection, limit) == 1 { answeredSpinning.add(1, ordering: .relaxed) }
    }
}

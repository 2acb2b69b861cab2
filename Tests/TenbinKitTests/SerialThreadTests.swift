import Glibc
import Testing

@testable import TenbinKit

/// The import's committing thread: work runs in order, all of it on one thread that is neither
/// the caller's nor another's, and finishing runs what is queued before the thread ends.
@Suite struct SerialThreadTests {
    @Test func workRunsInOrderOnOneThreadOfItsOwnAndFinishRunsWhatIsQueued() {
        let worker = SerialThread()
        let seen = Locked((order: [Int](), threads: Set<UInt>()))
        let gate = Locked(false)
        // The first piece holds the thread until the rest are queued, so finish() finds work.
        worker.async {
            while !gate.withLock({ $0 }) { usleep(1_000) }
            seen.withLock {
                $0.order.append(0); $0.threads.insert(UInt(pthread_self()))
            }
        }
        for index in 1..<200 {
            worker.async {
                seen.withLock {
                    $0.order.append(index); $0.threads.insert(UInt(pthread_self()))
                }
            }
        }
        gate.withLock { $0 = true }
        worker.finish()
        let result = seen.withLock { $0 }
        #expect(result.order == Array(0..<200))
        #expect(result.threads.count == 1)
        #expect(!result.threads.contains(UInt(pthread_self())))
    }

    @Test func aThreadWithNothingToDoFinishesAtOnce() {
        let worker = SerialThread()
        worker.finish()
    }
}

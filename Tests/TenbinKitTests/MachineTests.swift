import Testing

@testable import TenbinKit

struct MachineTests {
    /// The cores a thread may run on come from its affinity list, ranges and single cores alike.
    @Test func theAllowedCoresAreCountedFromTheAffinityList() {
        func count(_ status: String) -> Int? { Machine.coreCount(inStatus: Array(status.utf8)[...]) }
        #expect(count("Name:\ttenbin\nCpus_allowed:\tf0d\nCpus_allowed_list:\t0-3,8,10-11\nMems_allowed:\t1\n") == 7)
        #expect(count("Cpus_allowed_list:\t5\n") == 1)
        #expect(count("Cpus_allowed_list:\t0-1") == 2)
        #expect(count("Name:\ttenbin\n") == nil)
        #expect(count("Cpus_allowed_list:\t3-1\n") == nil)
        #expect(Machine.allowedCores() == Machine.activeCores)
        #expect(Machine.activeCores >= 1)
    }
}

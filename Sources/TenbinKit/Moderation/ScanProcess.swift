import Glibc

/// Runs a program in a process group of its own with a time limit, collecting the start of its
/// standard output: ``ImageScanner``'s way of running the operator's command.
///
/// The program is started with `posix_spawn` (no fork of a large server), standard input and
/// standard error on /dev/null, an empty signal mask and default signal handling (a server
/// ignores SIGPIPE, which would otherwise be inherited). A thread of its own waits for it
/// (`waitpid`) and wakes the caller through a pipe, so the caller waits in one `poll` on the
/// output and that pipe with the time left: no spinning, no fixed sleeps. When the time is
/// up the whole group is killed; once the program has ended, whatever it left in its group
/// is killed too.
enum ScanProcess {
    /// How the program ended.
    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
    }

    /// What a run gave.
    struct Outcome {
        var ending: Ending
        /// Up to the output limit of what it wrote to standard output.
        var output: [UInt8]
    }

    static func run(arguments: [String], timeoutSeconds: Double, outputLimit: Int) throws(ImageRefusal) -> Outcome {
        var output: [Int32] = [-1, -1]
        var wake: [Int32] = [-1, -1]
        guard closingOnExec(pipe(&output), output) else {
            throw .scanFailed("cannot start the scan command: \(SystemError.message(for: errno))")
        }
        guard closingOnExec(pipe(&wake), wake) else {
            let code = errno
            for descriptor in output { _ = close(descriptor) }  // never used
            throw .scanFailed("cannot start the scan command: \(SystemError.message(for: code))")
        }
        defer { for descriptor in output + wake where descriptor >= 0 { _ = close(descriptor) } }  // read ends: nothing to flush

        let pid: pid_t
        switch spawn(arguments, output: output[1]) {
        case .success(let started): pid = started
        case .failure(let error): throw .scanFailed("cannot start the scan command: \(SystemError.message(for: error.code))")
        }
        _ = close(output[1])  // the child has its copy; the parent's would keep EOF from coming
        output[1] = -1

        let status = Locked<Int32>(0)
        let notify = wake[1]
        let waiter = PosixThread.start {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status.withLock { $0 = raw }
            _ = FileDescriptor.writeAll([1], to: notify)  // the caller polls the read end; a full pipe cannot happen for one byte
        }
        guard let waiter else {
            _ = kill(-pid, SIGKILL)  // the group is this run's alone
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            throw .scanFailed("cannot wait for the scan command: the system refused a thread")
        }

        var collected: [UInt8] = []
        var outputOpen = true
        var exited = false
        let deadline = monotonicNow() + timeoutSeconds
        var buffer = [UInt8](repeating: 0, count: 4096)
        func readOutput() {
            let count = buffer.withUnsafeMutableBytes { read(output[0], $0.baseAddress, $0.count) }
            if count > 0 {
                if collected.count < outputLimit { collected += buffer.prefix(min(count, outputLimit - collected.count)) }
            } else if count == 0 || errno != EINTR && errno != EAGAIN {
                outputOpen = false
            }
        }
        while !exited {
            let left = deadline - monotonicNow()
            guard left > 0 else { break }
            var fds = [pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            if outputOpen { fds.append(pollfd(fd: output[0], events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(left * 1000, Double(Int32.max)).rounded(.up)))
            if ready < 0 && errno != EINTR { break }
            if fds.count > 1 && fds[1].revents != 0 { readOutput() }
            if fds[0].revents != 0 { exited = true }
        }
        // Killed when the time is up; after an exit, whatever the program left running in its
        // group (ESRCH when there is nothing left, the usual case).
        _ = kill(-pid, SIGKILL)
        _ = pthread_join(waiter, nil)  // waitpid returns once the program has ended, killed or not
        if exited {
            // What it wrote before it exited and is still in the pipe.
            var fds = [pollfd(fd: output[0], events: Int16(POLLIN), revents: 0)]
            while outputOpen && collected.count < outputLimit && poll(&fds, 1, 0) > 0 { readOutput() }
        }
        guard exited else { return Outcome(ending: .timedOut, output: collected) }
        let raw = status.withLock { $0 }
        let signal = raw & 0x7f
        return Outcome(ending: signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(signal), output: collected)
    }

    /// Starts `arguments` with `output` as its standard output, in a new process group.
    private static func spawn(_ arguments: [String], output: Int32) -> Result<pid_t, FileDescriptor.SystemCallError> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { return .failure(FileDescriptor.SystemCallError(code: ENOMEM)) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawnattr_init(&attributes) == 0 else { return .failure(FileDescriptor.SystemCallError(code: ENOMEM)) }
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        let flags = Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        var failed: Int32 = 0
        failed |= posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        failed |= posix_spawn_file_actions_adddup2(&actions, output, 1)
        failed |= posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        failed |= posix_spawnattr_setflags(&attributes, flags)
        failed |= posix_spawnattr_setpgroup(&attributes, 0)
        failed |= posix_spawnattr_setsigmask(&attributes, &empty)
        failed |= posix_spawnattr_setsigdefault(&attributes, &defaults)
        guard failed == 0 else { return .failure(FileDescriptor.SystemCallError(code: EINVAL)) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        return code == 0 ? .success(pid) : .failure(FileDescriptor.SystemCallError(code: code))
    }

    /// Whether a new pipe (`pipe`'s result) was made and both its ends marked close-on-exec.
    /// Glibc's module offers no `pipe2`: another thread's spawn may inherit the ends in between,
    /// which costs nothing here, since the end of a run is learnt from the waiter, not from
    /// the output's end.
    private static func closingOnExec(_ made: Int32, _ ends: [Int32]) -> Bool {
        guard made == 0 else { return false }
        for end in ends where fcntl(end, F_SETFD, FD_CLOEXEC) != 0 {
            let code = errno
            for descriptor in ends { _ = close(descriptor) }  // never used
            errno = code
            return false
        }
        return true
    }

    /// Seconds on the monotonic clock.
    private static func monotonicNow() -> Double {
        var now = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &now)  // CLOCK_MONOTONIC always exists on Linux
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension FileHandle {
    /// The next bytes of a pipe or file, waiting for some; empty at its end.
    ///
    /// Foundation's `availableData` traps on any read error. One `make sanitize` run ended that
    /// way, reading a server's output: `read` failed with EAGAIN, so the pipe's read end had
    /// been made non-blocking (by whom is not known). Here EAGAIN waits for data with `poll`,
    /// an interrupted read is retried, and any other error ends the stream as its end would.
    public func nextChunk(upTo count: Int = 65_536) -> Data {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let read = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, count) }
            if read >= 0 { return Data(buffer[0..<read]) }
            switch errno {
            case EINTR:
                continue
            case EAGAIN:
                var waiting = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&waiting, 1, -1)
            default:
                return Data()
            }
        }
    }
}

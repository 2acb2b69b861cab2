import Foundation
import Testing

/// A command reads its SQLite store with `read()` calls; `tenbin serve`, which reads the same
/// pages for as long as it runs, maps the database file (docs/architecture.md).
@Suite(.ownThreads, .timeLimit(.minutes(5))) struct DatabaseMappingTests {
    /// Whether the running process `pid` has the database file itself mapped (not its `-shm`
    /// index, which every connection in WAL mode maps).
    static func mapsDatabase(_ pid: Int32) throws -> Bool {
        // Read to its end: the kernel writes /proc files in pieces and reports their size as 0.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        #expect(maps.contains("tenbin.sqlite-shm"), "the maps were not read from a process with the store open")
        return maps.split(separator: "\n").contains { $0.hasSuffix("/tenbin.sqlite") }
    }

    @Test func aCommandReadsItsStoreWithoutMappingIt() throws {
        let store = try ScratchFolder()
        let images = LibraryLoadingTests.images
        #expect(try Tenbin.run(["post", images[0], images[1], "--text", "cats or dogs"], store: store.path).status == 0)
        // `tenbin watch` keeps running after its first line, having read the posters it shows.
        let watch = try WatchProcess(["watch", "--json"], store: store)
        #expect(try watch.nextObject()["type"] as? String == "snapshot")
        #expect(try !Self.mapsDatabase(watch.processIdentifier))
        #expect(try watch.interrupt().status == 130)
    }

    @Test func aServerMapsItsStore() throws {
        let server = try ServeProcess(["--no-rate-limit"])
        _ = try ServeEndToEndTests.ServeAPITests.post(server, contents: "cats or dogs")
        let connection = try server.connect()
        defer { connection.close() }
        #expect(try connection.request("GET", "/api/v1/posters").status == 200)
        #expect(try Self.mapsDatabase(server.process.processIdentifier))
    }
}

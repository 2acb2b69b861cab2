import Foundation
import Testing

/// libpq, libmicrohttpd (with GnuTLS), libmecab and the image codecs (libjpeg, libpng, libwebp,
/// zlib) are loaded on first use, not linked: a command on a SQLite store that decodes no image
/// never maps them, and a PostgreSQL command without libpq fails with one line.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct LibraryLoadingTests {
    static let images = [Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg", Tenbin.root + "/SampleImages/01-cats-or-dogs/2-dog.jpg"]

    @Test func aCommandOnASQLiteStoreMapsNeitherLibpqNorGnuTLS() throws {
        let store = try ScratchFolder()
        let posted = try Tenbin.run(["post", Self.images[0], Self.images[1]], store: store.path)
        #expect(posted.status == 0, "\(posted.stderr)")
        // `tenbin watch` keeps running after its first line, with the store open: its mappings
        // are every library it loaded, linked or opened since.
        let watch = try WatchProcess(["watch", "--json"], store: store)
        #expect(try watch.nextObject()["type"] as? String == "snapshot")
        // Read to its end: the kernel writes /proc files in pieces and reports their size as 0.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(watch.processIdentifier)/maps"))
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        #expect(maps.contains("libsqlite3.so"), "the maps were not read from the running process")
        let libraries = [
            "libpq.so", "libgnutls.so", "libkrb5.so", "libldap", "libssl.so", "libtasn1.so", "libmicrohttpd.so", "libmecab.so",
            "libjpeg.so", "libpng16.so", "libwebp.so", "libz.so",
        ]
        for library in libraries {
            #expect(!maps.contains(library), "tenbin watch on SQLite mapped \(library)")
        }
        #expect(try watch.interrupt().status == 130)
    }

    @Test func aPostgreSQLCommandWithoutLibpqIsOneErrorNamingTheLibraryAndTheReason() throws {
        // TENBIN_LIBPQ names the library to load instead of libpq.so.5 (docs/postgres.md).
        let folder = try ScratchFolder()
        let missing = try Tenbin.run(
            ["list", "--database", "postgresql://alice:hunter2@127.0.0.1:1/board"], store: folder.path,
            environment: ["TENBIN_LIBPQ": "/nonexistent/libpq.so.5"])
        #expect(missing.status == 1)
        #expect(
            missing.stderr
                == "Error: PostgreSQL needs /nonexistent/libpq.so.5 (Debian package libpq5), which cannot be loaded: "
                + "/nonexistent/libpq.so.5: cannot open shared object file: No such file or directory\n", "\(missing.stderr)")
        #expect(missing.stdout == "")
        // A library that loads but is not libpq (or a libpq too old for pipelining).
        let wrong = try Tenbin.run(
            ["vote", "1", "1", "--database", "postgresql:///board"], store: folder.path, environment: ["TENBIN_LIBPQ": "libsqlite3.so.0"])
        #expect(wrong.status == 1)
        #expect(
            wrong.stderr
                == "Error: the library loaded as libpq from libsqlite3.so.0 has no PQconnectdbParams (tenbin needs libpq 14 or newer)\n",
            "\(wrong.stderr)")
        // The same commands on SQLite never look for libpq.
        let store = try ScratchFolder()
        let listed = try Tenbin.run(["list"], store: store.path, environment: ["TENBIN_LIBPQ": "/nonexistent/libpq.so.5"])
        #expect(listed.status == 0, "\(listed.stderr)")
    }
}

import Foundation

/// `tenbin vote` as a whole process against one `sqlite3 DB "UPDATE …"` process, and what
/// starting a tenbin process costs against starting small C programs.
enum VoteBenchmark {
    static func run(_ context: BenchContext) throws {
        let store = try context.freshFolder("vote-store")
        let photos = try context.photos(count: 2, width: 640, height: 480)
        try Shell.run(context.tenbin, "--store", store, "post", photos[0], photos[1])
        // sqlite3 updates a copy of the store's database: each program finds its database as
        // it left it (tenbin's vote leaves its log for the next vote; sqlite3 removes it).
        let copy = try context.freshFolder("vote-sqlite3")
        try Shell.run("cp", "\(store)/tenbin.sqlite", copy)
        let database = "\(copy)/tenbin.sqlite"
        let rounds = 60
        var tenbin = Samples()
        var sqlite = Samples()
        for round in 0..<rounds {
            // Alternate so that drift in the machine's load affects both alike.
            let vote = try Shell.measure([context.tenbin, "--store", store, "vote", "1", round % 2 == 0 ? "1" : "2"])
            guard vote.status == 0 else { throw BenchError("tenbin vote exited \(vote.status)") }
            tenbin.add(vote.seconds)
            let update = try Shell.measure(["sqlite3", database, "UPDATE poster SET good1 = good1 + 1 WHERE id = 1"])
            guard update.status == 0 else { throw BenchError("sqlite3 exited \(update.status)") }
            sqlite.add(update.seconds)
        }
        var table = Table("one vote per process", "median", "p90", "ratio (median)")
        table.add("sqlite3 DB \"UPDATE …\"", Format.ms(sqlite.median), Format.ms(sqlite.percentile(90)), Format.ratio(1))
        table.add(
            "tenbin vote ID 1", Format.ms(tenbin.median), Format.ms(tenbin.percentile(90)), Format.ratio(tenbin.median / sqlite.median))
        table.print()
        print("\n\(rounds) runs each, interleaved. Aim: tenbin within 1.30× of sqlite3 (issue 33).\n")
        try processStart(context, store: store)
    }

    /// Whole processes that start and end at once, spawned directly and interleaved: the fixed
    /// cost every tenbin command pays (the dynamic loader, the Swift runtime) before its work.
    static func processStart(_ context: BenchContext, store: String) throws {
        let commands: [(label: String, arguments: [String])] = [
            ("/bin/true", ["/bin/true"]),
            ("sqlite3 -version", ["sqlite3", "-version"]),
            ("tenbin --version", [context.tenbin, "--version"]),
            ("tenbin vote ID 1 (no GNU time around it)", [context.tenbin, "--store", store, "vote", "1", "1"]),
        ]
        let rounds = 60
        var samples = Array(repeating: Samples(), count: commands.count)
        for _ in 0..<rounds {
            for (index, command) in commands.enumerated() {
                let run = try Shell.measureStart(command.arguments)
                guard run.status == 0 else { throw BenchError("\(command.label) exited \(run.status)") }
                samples[index].add(run.seconds)
            }
        }
        let reference = samples[1].median
        var table = Table("process start", "median", "p90", "ratio against sqlite3 -version")
        for (index, command) in commands.enumerated() {
            table.add(
                command.label, Format.ms(samples[index].median), Format.ms(samples[index].percentile(90)),
                Format.ratio(samples[index].median / reference))
        }
        table.print()
        print(
            "\n\(rounds) runs each, interleaved; load average \(MachineState.loadAverage()). libpq and libmicrohttpd are "
                + "loaded only when used, so neither the loader nor GnuTLS's constructors run here.")
    }
}

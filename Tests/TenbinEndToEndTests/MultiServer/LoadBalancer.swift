import Foundation
import TenbinKit
import TestProcesses
import Testing

/// Debian's nginx on a free loopback port in front of two servers, configured with the very
/// block docs/postgres.md documents (its upstream addresses and `listen` line replaced), so
/// the documented configuration is the tested one. Stopped when released.
final class LoadBalancer {
    let port: UInt16
    let folder: ScratchFolder
    private let process = Process()

    /// The ```nginx block of docs/postgres.md's "Two servers behind nginx" section.
    static func documentedConfiguration() throws -> String {
        let page = try String(contentsOfFile: Tenbin.root + "/docs/postgres.md", encoding: .utf8)
        let section = try #require(page.range(of: "## Two servers behind nginx"), "docs/postgres.md lost its nginx section")
        let fence = try #require(page.range(of: "```nginx\n", range: section.upperBound..<page.endIndex))
        let end = try #require(page.range(of: "\n```", range: fence.upperBound..<page.endIndex))
        return String(page[fence.upperBound..<end.lowerBound])
    }

    init(_ servers: [UInt16]) throws {
        folder = try ScratchFolder()
        port = try Self.freePort()
        var block = try Self.documentedConfiguration()
        let replacements = [
            ("server app1.internal:8080", "server 127.0.0.1:\(servers[0])"),
            ("server app2.internal:8080", "server 127.0.0.1:\(servers[1])"),
            ("listen 80;", "listen 127.0.0.1:\(port);"),
        ]
        for (documented, tested) in replacements {
            try #require(block.contains(documented), "the documented nginx block has no \(documented)")
            block = block.replacingOccurrences(of: documented, with: tested)
        }
        let path = folder.path
        // As root, nginx's workers would drop to `nobody`, who cannot read a 0700 scratch folder.
        let user = getuid() == 0 ? "user root;\n" : ""
        let configuration = """
            \(user)worker_processes 1;
            daemon off;
            master_process on;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
            \(block)
            }

            """
        try configuration.write(toFile: path + "/nginx.conf", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-e", path + "/error.log", "-p", path, "-c", path + "/nginx.conf"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.start()
        _ = try poll(seconds: 20, "nginx to listen on port \(port)", seen: { self.errorLog }) { () -> Bool? in
            if !process.isRunning { throw ServeError("nginx exited: \(self.errorLog)") }
            return (try? HTTPConnection(port: port)) != nil ? true : nil
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGQUIT)
            process.waitForExit()
        }
    }

    var errorLog: String { (try? String(contentsOfFile: folder.path + "/error.log", encoding: .utf8)) ?? "" }

    func connect() throws -> HTTPConnection { try HTTPConnection(port: port) }

    /// One request on a fresh connection through nginx.
    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) throws -> HTTPReply {
        let connection = try connect()
        defer { connection.close() }
        return try connection.request(method, path, headers: headers, body: body)
    }

    /// A free loopback port (the kernel's choice, released again for nginx to take).
    static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ServeError("socket failed: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw ServeError("bind failed: \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }
}

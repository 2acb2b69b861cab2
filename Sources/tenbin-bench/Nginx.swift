import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's nginx (`nginx-light`) on a free loopback port: serving a folder, the reference the
/// serve benchmark compares tenbin with (two workers, one per core, as many as tenbin's pool);
/// or configured otherwise (the rolling section's load balancer).
final class Nginx {
    let port: UInt16
    private let process: Child
    private var stopped = false

    /// nginx serving the files of `root`.
    convenience init(folder: String, root: String) throws {
        let port = try LoopbackHTTP.freePort()
        try self.init(
            folder: folder, port: port, workers: 2,
            http: """
                    sendfile on;
                    tcp_nopush on;
                    keepalive_requests 100000000;
                    types { application/json json; image/jpeg jpg; }
                    server {
                        listen 127.0.0.1:\(port);
                        root \(root);
                    }
                """)
    }

    /// nginx with `http` inside its `http` block, listening on `port` (which `http` names).
    init(folder: String, port: UInt16, workers: Int, http: String) throws {
        self.port = port
        let config = "\(folder)/nginx.conf"
        // As root, nginx's workers would drop to `nobody`, who cannot read a 0700 scratch folder.
        let user = getuid() == 0 ? "user root;\n" : ""
        let text = """
            \(user)worker_processes \(workers);
            daemon off;
            master_process on;
            pid \(folder)/nginx.pid;
            error_log \(folder)/nginx-error.log warn;
            events { worker_connections 4096; }
            http {
                access_log off;
                client_body_temp_path \(folder)/nginx-body;
                proxy_temp_path \(folder)/nginx-proxy;
            \(http)
            }

            """
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        process = try Child(["/usr/sbin/nginx", "-e", "\(folder)/nginx-error.log", "-c", config, "-p", folder])
        try LoopbackHTTP.waitForListener(port: port, seconds: 10)
    }

    deinit {
        stop()
    }

    /// Stops nginx (SIGQUIT: finish and exit) once.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(process.pid, SIGQUIT)
        var status: Int32 = 0
        while waitpid(process.pid, &status, 0) < 0 && errno == EINTR {}
    }
}

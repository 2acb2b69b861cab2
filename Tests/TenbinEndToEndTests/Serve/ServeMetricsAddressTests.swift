import Foundation
import TenbinKit
import TestProcesses
import Testing

extension ServeDaemonEndToEndTests {
    /// `tenbin serve --metrics-listen`: metrics, health and readiness on an address of their
    /// own, on a real socket next to the main one.
    @Suite(.timeLimit(.minutes(5))) struct ServeMetricsAddressTests {
        /// One request on a fresh connection to `port`.
        static func get(_ port: UInt16, _ path: String) throws -> HTTPReply {
            let connection = try HTTPConnection(port: port)
            defer { connection.close() }
            return try connection.request("GET", path)
        }

        @Test func metricsMoveToTheirOwnAddressAndTheMainOneAnswers404() throws {
            let metricsPort = try LoadBalancer.freePort()
            let server = try ServeProcess(["--metrics-listen", "127.0.0.1:\(metricsPort)", "--max-upload-mb", "1"])
            #expect(try server.request("GET", "/metrics").status == 404)
            #expect(try server.request("GET", "/healthz").status == 200)
            // A post refused from its Content-Length by the HTTP layer, before the route's
            // handler: counted all the same.
            let connection = try server.connect()
            try connection.send(
                "POST /api/v1/posters HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                    + "Content-Length: 5000000\r\nExpect: 100-continue\r\n\r\n")
            #expect(try connection.readReply().status == 413)
            connection.close()

            // An exchange is counted as its connection finishes it, a moment after the answer.
            var metrics = try Self.get(metricsPort, "/metrics")
            let deadline = Date().addingTimeInterval(10)
            while !metrics.text.contains("tenbin_http_requests_total{route=\"GET /healthz\",status=\"200\"} 1\n"), Date() < deadline {
                usleep(10_000)
                metrics = try Self.get(metricsPort, "/metrics")
            }
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("tenbin_http_requests_total{route=\"GET /healthz\",status=\"200\"} 1\n"), "\(metrics.text)")
            #expect(metrics.text.contains("tenbin_posts_refused_total{reason=\"too_large\"} 1\n"), "\(metrics.text)")
            #expect(metrics.text.contains("tenbin_build_info{version=\"\(TenbinVersion.current)\"} 1\n"))
            #expect(metrics.text.contains("\nprocess_open_fds "))
            #expect(metrics.text.contains("\nprocess_resident_memory_bytes "))
            #expect(metrics.text.contains("\nprocess_start_time_seconds "))
            #expect(try Self.get(metricsPort, "/healthz").status == 200)
            #expect(try Self.get(metricsPort, "/readyz").status == 200)
            #expect(try Self.get(metricsPort, "/api/v1/posters").status == 404)
            #expect(try Self.get(metricsPort, "/").status == 404)

            let (status, log) = server.stop()
            #expect(status == 0, "\(log)")
            // Both addresses are closed.
            #expect(throws: (any Error).self) { try HTTPConnection(port: metricsPort) }
        }

        @Test func theServerNamesItsMetricsAddressAndRefusesABadOne() throws {
            let metricsPort = try LoadBalancer.freePort()
            let store = try ScratchFolder()
            // The second line of standard output names the metrics address.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Tenbin.binary)
            process.arguments = [
                "--store", store.path + "/store", "serve", "--listen", "127.0.0.1:0", "--metrics-listen", "localhost:\(metricsPort)",
            ]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.start()
            defer {
                kill(process.processIdentifier, SIGKILL)
                process.waitForExit()
            }
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            while text.split(separator: "\n").count < 2, Date() < deadline {
                let chunk = out.fileHandleForReading.nextChunk()
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            #expect(text.hasSuffix("\nMetrics, health and readiness at http://127.0.0.1:\(metricsPort)/\n"), "\(text)")

            let bad = try Tenbin.run(
                ["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "example.invalid:1"], store: store.path + "/b")
            #expect(bad.status != 0)
            #expect(bad.stdout == "")
            #expect(bad.stderr.hasPrefix("Error: --metrics-listen must be IPV4:PORT"), "\(bad.stderr)")
            // Taken by the server above: the second server stops instead of serving without it.
            let taken = try Tenbin.run(
                ["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:\(metricsPort)"], store: store.path + "/c", deadline: 10
            )
            #expect(taken.status == 1)
            #expect(taken.stdout == "")
            #expect(taken.stderr == "Error: cannot listen on 127.0.0.1:\(metricsPort): Address already in use\n")
        }
    }
}

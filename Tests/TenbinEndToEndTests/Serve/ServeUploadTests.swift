import Foundation
import Testing

extension ServeEndToEndTests {
    /// New posters through `POST /api/v1/posters` on a real socket: bodies libmicrohttpd cannot
    /// parse, limits checked before the body is read, slow and abandoned uploads. Nothing bad
    /// leaves a blob. (Forms' parts and hostile images are tested in process: UploadRoutesTests.)
    @Suite(.timeLimit(.minutes(10))) struct ServeUploadTests {
        static let cat = ServeAPITests.cat
        static let dog = ServeAPITests.dog

        static func send(_ server: ServeProcess, _ form: Multipart, headers: [(String, String)] = []) throws -> HTTPReply {
            try server.request("POST", "/api/v1/posters", headers: [("Content-Type", form.contentType)] + headers, body: form.body)
        }

        /// Whether the store holds no blob file and `tenbin check` passes.
        static func storeIsClean(_ server: ServeProcess) throws -> Bool {
            let blobs = (FileManager.default.enumerator(atPath: server.store + "/blobs")?.allObjects as? [String] ?? [])
                .filter { $0.count > 3 }
            let check = try Tenbin.run(["check"], store: server.store)
            return blobs.isEmpty && check.status == 0
        }

        @Test func formsLibmicrohttpdCannotReadAreRefusedWith400() throws {
            // Missing, repeated and extra parts are refused in process (UploadRoutesTests); here
            // the bodies libmicrohttpd's multipart reader cannot make parts of.
            let server = try ServeProcess(["--no-rate-limit"])
            let noBoundary = try server.request(
                "POST", "/api/v1/posters", headers: [("Content-Type", "multipart/form-data")], body: Array("garbage".utf8))
            #expect(noBoundary.status == 415 || noBoundary.status == 400, "\(noBoundary.text)")
            // It is multipart: what is missing is the boundary (it said "must be multipart").
            #expect(noBoundary.errorMessage?.contains("boundary") == true, "\(noBoundary.text)")
            let garbage = try server.request(
                "POST", "/api/v1/posters", headers: [("Content-Type", "multipart/form-data; boundary=xyz")], body: Array("garbage".utf8))
            #expect(garbage.status == 400, "\(garbage.text)")
            #expect(try Self.storeIsClean(server))
        }

        @Test func anOversizedBodyIsRefusedFromItsContentLengthBeforeAByteIsSent() throws {
            let server = try ServeProcess(["--max-upload-mb", "1"])
            let connection = try server.connect()
            try connection.send(
                "POST /api/v1/posters HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                    + "Content-Length: 5000000\r\nExpect: 100-continue\r\n\r\n")
            let reply = try connection.readReply()
            #expect(reply.status == 413)
            #expect(reply.errorKind == "limit_exceeded")
            #expect(reply.errorMessage?.contains("1048576") == true, "\(reply.text)")

            // A part over the image size limit is refused while libmicrohttpd's reader streams it.
            let small = try ServeProcess(["--max-file-mb", "1", "--max-upload-mb", "8"])
            var form = Multipart()
            try form.file("image1", path: Self.cat)
            form.parts.append(
                .init(name: "image2", filename: "big.jpg", contentType: "image/jpeg", bytes: [UInt8](repeating: 0xFF, count: 1_200_000)))
            let big = try Self.send(small, form)
            #expect(big.status == 413)
            #expect(big.errorMessage?.contains("image2") == true, "\(big.text)")
            #expect(try Self.storeIsClean(small))
        }

        @Test func aSlowlySentUploadIsStoredWhole() throws {
            let server = try ServeProcess()
            var form = Multipart()
            try form.file("image1", path: Self.cat)
            try form.file("image2", path: Self.dog)
            form.field("contents", "slow")
            let body = form.body
            let connection = try server.connect()
            try connection.send(
                "POST /api/v1/posters HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(form.contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
            )
            var offset = 0
            let step = body.count / 8 + 1
            while offset < body.count {
                try connection.send(Array(body[offset..<min(body.count, offset + step)]))
                offset += step
                usleep(150_000)
            }
            let reply = try connection.readReply()
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.json["contents"] as? String == "slow")
        }

        @Test func aClientLeavingMidUploadLeavesTheStoreCleanAndTheServerServing() throws {
            let server = try ServeProcess()
            var form = Multipart()
            try form.file("image1", path: Self.cat)
            try form.file("image2", path: Self.dog)
            let body = form.body
            for cut in [10, body.count / 2, body.count - 5] {
                let connection = try server.connect()
                try connection.send(
                    "POST /api/v1/posters HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(form.contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
                )
                try connection.send(Array(body[..<cut]))
                connection.close()
            }
            #expect(try server.request("GET", "/healthz").status == 200)
            #expect(try server.request("GET", "/api/v1/posters").text == "{\"posters\": []}\n")
            #expect(try Self.storeIsClean(server))
            #expect(try Self.send(server, form).status == 201)
        }

        @Test func aChunkedBodyOverTheLimitEndsTheConnection() throws {
            let server = try ServeProcess(["--max-upload-mb", "1"])
            let connection = try server.connect()
            try connection.send(
                "POST /api/v1/posters HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x41, count: 0x10000) + Array("\r\n".utf8)
            var refused = false
            for _ in 0..<40 where !refused {
                do { try connection.send(chunk) } catch { refused = true }
            }
            #expect(refused || connection.isClosedByServer())
            #expect(try server.request("GET", "/healthz").status == 200)
        }
    }
}

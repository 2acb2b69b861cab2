import Foundation
import Testing

extension ServeEndToEndTests {
    /// New posters through `POST /api/v1/posters`: multipart edge cases, limits checked before
    /// the body is read, hostile images, slow and abandoned uploads. Nothing bad leaves a blob.
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

        @Test func malformedFormsAreRefusedWith400NamingTheField() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            var missing = Multipart()
            try missing.file("image1", path: Self.cat)
            let noSecond = try Self.send(server, missing)
            #expect(noSecond.status == 400)
            #expect(noSecond.errorMessage?.contains("no image2") == true, "\(noSecond.text)")

            var three = Multipart()
            try three.file("image1", path: Self.cat)
            try three.file("image2", path: Self.dog)
            try three.file("image3", path: Self.dog)
            let third = try Self.send(server, three)
            #expect(third.status == 400)
            #expect(third.errorMessage?.contains("image3") == true)

            var twice = Multipart()
            try twice.file("image1", path: Self.cat)
            try twice.file("image1", path: Self.dog)
            try twice.file("image2", path: Self.dog)
            #expect(try Self.send(server, twice).errorMessage?.contains("more than one image1") == true)

            var manyTags = Multipart()
            try manyTags.file("image1", path: Self.cat)
            try manyTags.file("image2", path: Self.dog)
            for index in 0..<40 { manyTags.field("hashtags", "tag\(index)") }
            let tags = try Self.send(server, manyTags)
            #expect(tags.status == 400, "\(tags.text)")

            var badText = Multipart()
            try badText.file("image1", path: Self.cat)
            try badText.file("image2", path: Self.dog)
            badText.parts.append(.init(name: "contents", filename: nil, contentType: nil, bytes: [0xFF, 0xFE, 0x41]))
            #expect(try Self.send(server, badText).status == 400)

            let json = try server.postJSON("/api/v1/posters", "{}")
            #expect(json.status == 415)
            #expect(json.errorKind == "unsupported_media_type")
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

        @Test(arguments: [
            ("empty.jpg", 422), ("text-named.jpg", 422), ("animation.jpg", 422), ("truncated.jpg", 422),
            ("truncated.png", 422), ("bad-crc.png", 422), ("zero-size.png", 422), ("huge-30000x30000.png", 413),
            ("huge-65000x65000.jpg", 413),
            // An animated WebP is not an image over a limit (the page said "too large"): 422.
            ("../formats/animated.webp", 422),
        ])
        func hostileImagesAreRefusedNamingTheFieldAndLeaveNothing(name: String, status: Int) throws {
            let server = try ServeProcess(["--no-rate-limit"])
            let hostile = Tenbin.root + "/Tests/Fixtures/hostile/" + name
            for (first, second) in [(Self.cat, hostile), (hostile, Self.cat)] {
                var form = Multipart()
                try form.file("image1", path: first)
                try form.file("image2", path: second)
                let reply = try Self.send(server, form)
                #expect(reply.status == status, "\(name): \(reply.text)")
                let field = first == hostile ? "image1" : "image2"
                #expect(reply.errorMessage?.hasPrefix("\(field): ") == true, "\(reply.text)")
                #expect(reply.errorMessage?.contains("/") == false, "no path in \(reply.text)")
            }
            #expect(try server.request("GET", "/healthz").status == 200)
            #expect(try Self.storeIsClean(server))
        }

        @Test func anOversizedBodyIsRefusedFromItsContentLengthBeforeAByteIsSent() throws {
            let server = try ServeProcess(["--max-upload-mb", "1"])
            let connection = try server.connect()
            try connection.send(
                "POST /api/v1/posters HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                    + "Content-Length: 5000000\r\nExpect: 100-continue\r\n\r\n")
            let reply = try connection.readReply()
            #expect(reply.status == 413)
            #expect(reply.errorKind == "limit_exceeded")
            #expect(reply.errorMessage?.contains("1048576") == true, "\(reply.text)")

            // A part over the image size limit is refused while it arrives.
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
                "POST /api/v1/posters HTTP/1.1\r\nHost: x\r\nContent-Type: \(form.contentType)\r\nContent-Length: \(body.count)\r\n\r\n")
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
                    "POST /api/v1/posters HTTP/1.1\r\nHost: x\r\nContent-Type: \(form.contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
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
                "POST /api/v1/posters HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n"
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

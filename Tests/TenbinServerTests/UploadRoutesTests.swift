import Foundation
import TenbinKit
import Testing

/// New posters through `POST /api/v1/posters` in process: forms missing or repeating a part,
/// and hostile images, are refused naming the field and leave no blob. (The multipart parsing
/// itself, parts over a limit as they stream in, and limits checked before a body is read are
/// tested end to end.)
@Suite struct UploadRoutesTests {
    typealias Part = (name: String, bytes: [UInt8], filename: String?)
    static let cat: Part = ("image1", TestServer.cat, "cat.jpg")
    static let dog: Part = ("image2", TestServer.dog, "dog.jpg")

    static func send(_ server: TestServer, _ parts: [Part]) async -> TestReply {
        await server.request("POST", "/api/v1/posters", body: .form(parts))
    }

    @Test func eachImagesAltTextIsStoredAndUsedOnThePage() async throws {
        let server = try TestServer { $0.rateLimited = false }
        let posted = await Self.send(
            server, [Self.cat, Self.dog, ("alt1", Array("A tabby cat".utf8), nil), ("alt2", Array("黒い犬 <b>".utf8), nil)])
        #expect(posted.status == 201, "\(posted.text)")
        #expect(posted.text.contains("\"alt1\": \"A tabby cat\", \"alt2\": \"黒い犬 <b>\""), "\(posted.text)")
        let page = await server.request("GET", "/")
        #expect(page.text.contains("alt=\"A tabby cat\">") && page.text.contains("alt=\"黒い犬 &lt;b&gt;\">"))
        let long = await Self.send(server, [Self.cat, Self.dog, ("alt2", Array(String(repeating: "a", count: 1001).utf8), nil)])
        #expect(long.status == 422)
        #expect(long.errorMessage == "the alt text of image2 is longer than 1,000 bytes")
        let twice = await Self.send(server, [Self.cat, Self.dog, ("alt1", [0x61], nil), ("alt1", [0x62], nil)])
        #expect(twice.status == 400)
        #expect(twice.errorMessage == "the form has more than one alt1 field")
    }

    @Test func malformedFormsAreRefusedWith400NamingTheField() async throws {
        let server = try TestServer { $0.rateLimited = false }
        let noSecond = await Self.send(server, [Self.cat])
        #expect(noSecond.status == 400)
        #expect(noSecond.errorMessage?.contains("no image2") == true, "\(noSecond.text)")

        let third = await Self.send(server, [Self.cat, Self.dog, ("image3", TestServer.dog, "dog.jpg")])
        #expect(third.status == 400)
        #expect(third.errorMessage?.contains("image3") == true)

        let twice = await Self.send(server, [Self.cat, ("image1", TestServer.dog, "dog.jpg"), Self.dog])
        #expect(twice.errorMessage?.contains("more than one image1") == true)

        let tags = await Self.send(server, [Self.cat, Self.dog] + (0..<40).map { ("hashtags", Array("tag\($0)".utf8), nil) })
        #expect(tags.status == 400, "\(tags.text)")

        #expect(await Self.send(server, [Self.cat, Self.dog, ("contents", [0xFF, 0xFE, 0x41], nil)]).status == 400)

        let json = await server.request("POST", "/api/v1/posters", json: "{}")
        #expect(json.status == 415)
        #expect(json.errorKind == "unsupported_media_type")
        #expect(try server.storeIsClean())
    }

    @Test(arguments: [
        ("empty.jpg", 422), ("text-named.jpg", 422), ("animation.jpg", 422), ("truncated.jpg", 422),
        ("truncated.png", 422), ("bad-crc.png", 422), ("zero-size.png", 422), ("huge-30000x30000.png", 413),
        ("huge-65000x65000.jpg", 413),
        // An animated WebP is not an image over a limit (the page said "too large"): 422.
        ("../formats/animated.webp", 422),
    ])
    func hostileImagesAreRefusedNamingTheFieldAndLeaveNothing(name: String, status: Int) async throws {
        let server = try TestServer { $0.rateLimited = false }
        let hostile = try #require(FileManager.default.contents(atPath: TestServer.root + "/Tests/Fixtures/hostile/" + name))
        let filename = URL(fileURLWithPath: name).lastPathComponent
        for hostileFirst in [false, true] {
            let parts: [Part] =
                hostileFirst
                ? [("image1", Array(hostile), filename), ("image2", TestServer.cat, "cat.jpg")]
                : [Self.cat, ("image2", Array(hostile), filename)]
            let reply = await Self.send(server, parts)
            #expect(reply.status == status, "\(name): \(reply.text)")
            let field = hostileFirst ? "image1" : "image2"
            #expect(reply.errorMessage?.hasPrefix("\(field): ") == true, "\(reply.text)")
            #expect(reply.errorMessage?.contains("/") == false, "no path in \(reply.text)")
        }
        #expect(await server.request("GET", "/healthz").status == 200)
        #expect(try server.storeIsClean())
    }
}

import Foundation
import TenbinKit
import Testing

/// The routes that serve files, in process: blobs, thumbnails, and the page's own script, style
/// sheet and icon, with their validators, caching and gzip.
@Suite struct FileRoutesTests {
    /// The width in a baseline or progressive JPEG's SOF marker.
    static func jpegWidth(_ bytes: [UInt8]) -> Int? {
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xC0 || marker == 0xC2 { return Int(bytes[index + 7]) << 8 | Int(bytes[index + 8]) }
            index += 2 + length
        }
        return nil
    }

    @Test func blobsAreServedImmutablyWithEtagsAnd304() async throws {
        let server = try TestServer()
        let digest = AdminRoutesTests.digest(await server.post().json)
        let reply = await server.request("GET", "/blobs/\(digest)")
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "image/jpeg")
        #expect(reply.header("etag") == "\"\(digest)\"")
        #expect(reply.header("cache-control") == "public, max-age=31536000, immutable")
        #expect(reply.header("x-content-type-options") == "nosniff")
        let file = try Data(contentsOf: URL(fileURLWithPath: "\(server.folder)/blobs/\(digest.prefix(2))/\(digest)"))
        #expect(Data(reply.bytes) == file)
        let cached = await server.request("GET", "/blobs/\(digest)", headers: [("If-None-Match", "\"\(digest)\"")])
        #expect(cached.status == 304)
        #expect(cached.header("etag") == "\"\(digest)\"")
        let head = await server.request("HEAD", "/blobs/\(digest)")
        #expect(head.status == 200)
        #expect(head.bodyCount == file.count)
        let upper = await server.request("GET", "/blobs/\(digest.uppercased())")
        #expect(upper.status == 404)
    }

    @Test func aBlobAnsweredFromMemoryIsGoneOnceItsFileIs() async throws {
        let server = try TestServer()
        let digest = AdminRoutesTests.digest(await server.post().json)
        let path = "\(server.folder)/blobs/\(digest.prefix(2))/\(digest)"
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        // The first answer reads the file and keeps its bytes; the next ones come from memory.
        for _ in 0..<3 {
            let reply = await server.request("GET", "/blobs/\(digest)")
            #expect(reply.status == 200)
            #expect(Data(reply.bytes) == file)
        }
        // What `tenbin gc` or a delete in another process does: the file goes, and so does the image.
        try FileManager.default.removeItem(atPath: path)
        let gone = await server.request("GET", "/blobs/\(digest)")
        #expect(gone.status == 404)
        #expect(gone.errorKind == "not_found")
    }

    @Test func thumbnailsAreScaledCachedAndRefusedAtOtherWidths() async throws {
        let server = try TestServer()
        let digest = AdminRoutesTests.digest(await server.post().json)
        // Several clients ask for the same thumbnail at once; all get the same bytes.
        let replies = await withTaskGroup(of: TestReply.self) { group in
            for _ in 0..<6 { group.addTask { await server.request("GET", "/thumbs/\(digest)?w=160") } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(replies.map(\.bytes)).count == 1)
        let thumb = replies[0]
        #expect(thumb.status == 200)
        #expect(thumb.header("content-type") == "image/jpeg")
        #expect(thumb.header("etag") == "\"\(digest)-w160\"")
        #expect(thumb.header("cache-control") == "public, max-age=31536000, immutable")
        #expect(thumb.bytes.starts(with: [0xFF, 0xD8, 0xFF]))
        // The JPEG's frame header says how wide it is.
        #expect(Self.jpegWidth(thumb.bytes) == 160)
        let again = await server.request("GET", "/thumbs/\(digest)?w=160", headers: [("If-None-Match", "\"\(digest)-w160\"")])
        #expect(again.status == 304)
        #expect(await server.request("GET", "/thumbs/\(digest)?w=320").status == 200)
        let metrics = await server.request("GET", "/metrics").text
        #expect(metrics.contains("tenbin_thumbnail_cache_hits_total"))
        #expect(await server.request("GET", "/thumbs/\(String(repeating: "1", count: 64))?w=160").status == 404)
    }

    @Test func aBrowserThatTakesWebPGetsWebPThumbnailsAndTheAnswerVariesWithAccept() async throws {
        let server = try TestServer()
        let digest = AdminRoutesTests.digest(await server.post().json)
        let chrome = [("Accept", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8")]
        let webp = await server.request("GET", "/thumbs/\(digest)?w=320", headers: chrome)
        #expect(webp.status == 200)
        #expect(webp.header("content-type") == "image/webp")
        #expect(webp.header("vary") == "Accept")
        #expect(webp.header("etag") == "\"\(digest)-w320-webp\"")
        #expect(webp.bytes.starts(with: Array("RIFF".utf8)) && webp.bytes.dropFirst(8).starts(with: Array("WEBP".utf8)))
        // Decoded by the project's own codec: the width asked for, and real pixels.
        let codec = ImageCodec(encoding: EncodingOptions())
        let header = try codec.probe(webp.bytes, source: "thumbnail")
        #expect(header.format == .webp && header.width == 320)
        let jpeg = await server.request("GET", "/thumbs/\(digest)?w=320")
        #expect(jpeg.header("content-type") == "image/jpeg")
        #expect(jpeg.header("vary") == "Accept")
        #expect(jpeg.header("etag") == "\"\(digest)-w320\"")
        #expect(webp.bytes.count < jpeg.bytes.count, "WebP \(webp.bytes.count) bytes, JPEG \(jpeg.bytes.count)")
        // Refused by weight, or only reached by a wildcard: the image's own format.
        for accept in ["image/webp;q=0, image/*", "image/*,*/*;q=0.8"] {
            #expect(
                await server.request("GET", "/thumbs/\(digest)?w=320", headers: [("Accept", accept)]).header("content-type") == "image/jpeg"
            )
        }
        // Each variant revalidates against its own tag only.
        let same = await server.request("GET", "/thumbs/\(digest)?w=320", headers: chrome + [("If-None-Match", "\"\(digest)-w320-webp\"")])
        #expect(same.status == 304)
        #expect(same.header("vary") == "Accept")
        let other = await server.request("GET", "/thumbs/\(digest)?w=320", headers: chrome + [("If-None-Match", "\"\(digest)-w320\"")])
        #expect(other.status == 200)
    }

    @Test func thePagesScriptStyleAndIconAreCachedForGoodUnderTheirVersionedURLs() async throws {
        let server = try TestServer()
        let page = await server.request("GET", "/").text
        let urls = ["app.js", "app.css", "icon.svg"].compactMap { name in
            page.firstRange(of: "/static/\(name)?v=").map { range in
                String(page[range.lowerBound...].prefix { $0 != "\"" })
            }
        }
        #expect(urls.count == 3, "\(page.prefix(600))")
        for url in urls {
            // The version in the URL changes with the file, so the URL's bytes never change:
            // before, they were kept an hour with no validator, then fetched whole again.
            let reply = await server.request("GET", url)
            #expect(reply.status == 200)
            #expect(reply.header("cache-control") == "public, max-age=31536000, immutable", "\(url)")
            let etag = try #require(reply.header("etag"), "\(url)")
            let again = await server.request("GET", url, headers: [("If-None-Match", etag)])
            #expect(again.status == 304, "\(url)")
            #expect(again.bytes.isEmpty)
            // Without the version (or with an old one) the file may change: kept, but asked
            // again, and answered 304 while it has not changed.
            let bare = String(url.prefix { $0 != "?" })
            for other in [bare, bare + "?v=0000000000"] {
                let unversioned = await server.request("GET", other)
                #expect(unversioned.status == 200)
                #expect(unversioned.bytes == reply.bytes)
                #expect(unversioned.header("cache-control") == "no-cache", "\(other)")
                #expect(await server.request("GET", other, headers: [("If-None-Match", etag)]).status == 304)
            }
        }
    }

    @Test func thePageItsScriptAndItsStyleSheetAreSentGzippedToABrowserThatTakesIt() async throws {
        let server = try TestServer { $0.rateLimited = false }
        for index in 1...20 { await server.post(contents: "猫か犬か \(index)", hashtags: ["ねこ", "いぬ"]) }
        let browser = ("Accept-Encoding", "gzip, deflate, br")
        let page = await server.request("GET", "/")
        let script = try #require(page.text.firstRange(of: "/static/app.js?v=").map { page.text[$0.lowerBound...].prefix { $0 != "\"" } })
        let style = try #require(page.text.firstRange(of: "/static/app.css?v=").map { page.text[$0.lowerBound...].prefix { $0 != "\"" } })
        for (path, plain) in [
            ("/", page), (String(script), await server.request("GET", String(script))),
            (String(style), await server.request("GET", String(style))),
        ] {
            // Before, every byte went as it is: 43 KB of HTML for twenty posters, 22 KB of
            // script, on a phone's slow link.
            #expect(plain.header("content-encoding") == nil, "no gzip for a client that does not ask: \(path)")
            // The page is also in the language its request asks for.
            let vary = path == "/" ? "Accept-Encoding, Accept-Language, Cookie" : "Accept-Encoding"
            #expect(plain.header("vary") == vary, "\(path)")
            let zipped = await server.request("GET", path, headers: [browser])
            #expect(zipped.status == 200)
            #expect(zipped.header("content-encoding") == "gzip", "\(path)")
            #expect(zipped.header("vary") == vary, "\(path)")
            #expect(zipped.header("content-type") == plain.header("content-type"))
            #expect(zipped.bytes.count * 3 < plain.bytes.count, "\(path): \(zipped.bytes.count) of \(plain.bytes.count) bytes")
            #expect(try ReadRoutesTests.gunzip(zipped.bytes) == plain.bytes, "\(path)")
            // Each representation has its own validator, and each answers 304.
            let etag = try #require(zipped.header("etag"))
            #expect(etag != plain.header("etag"))
            #expect(await server.request("GET", path, headers: [browser, ("If-None-Match", etag)]).status == 304, "\(path)")
            // gzip refused with q=0: sent as it is.
            let refused = await server.request("GET", path, headers: [("Accept-Encoding", "gzip;q=0, identity")])
            #expect(refused.header("content-encoding") == nil, "\(path)")
            #expect(refused.bytes == plain.bytes)
        }
    }
}

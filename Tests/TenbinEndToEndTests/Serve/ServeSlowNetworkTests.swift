import Foundation
import Testing

extension ServeEndToEndTests {
    /// The web page's own files as a phone on a slow network fetches them: once, then from its
    /// cache.
    @Suite(.timeLimit(.minutes(10))) struct ServeSlowNetworkTests {
        @Test func thePagesScriptStyleAndIconAreCachedForGoodUnderTheirVersionedURLs() throws {
            let server = try ServeProcess()
            let page = try server.request("GET", "/").text
            let urls = ["app.js", "app.css", "icon.svg"].compactMap { name in
                page.firstRange(of: "/static/\(name)?v=").map { range in
                    String(page[range.lowerBound...].prefix { $0 != "\"" })
                }
            }
            #expect(urls.count == 3, "\(page.prefix(600))")
            for url in urls {
                // The version in the URL changes with the file, so the URL's bytes never change:
                // before, they were kept an hour with no validator, then fetched whole again.
                let reply = try server.request("GET", url)
                #expect(reply.status == 200)
                #expect(reply.headers["cache-control"] == "public, max-age=31536000, immutable", "\(url)")
                let etag = try #require(reply.headers["etag"], "\(url)")
                let again = try server.request("GET", url, headers: [("If-None-Match", etag)])
                #expect(again.status == 304, "\(url)")
                #expect(again.body.isEmpty)
                // Without the version (or with an old one) the file may change: kept, but asked
                // again, and answered 304 while it has not changed.
                let bare = String(url.prefix { $0 != "?" })
                for other in [bare, bare + "?v=0000000000"] {
                    let unversioned = try server.request("GET", other)
                    #expect(unversioned.status == 200)
                    #expect(unversioned.body == reply.body)
                    #expect(unversioned.headers["cache-control"] == "no-cache", "\(other)")
                    #expect(try server.request("GET", other, headers: [("If-None-Match", etag)]).status == 304)
                }
            }
        }

        /// `gzip -dc` of `bytes`.
        static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/gzip")
            process.arguments = ["-dc"]
            let result = try Shell.collect(process, what: "gzip -dc", stdin: Data(bytes))
            #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
            return Array(result.stdout)
        }

        @Test func thePageItsScriptAndItsStyleSheetAreSentGzippedToABrowserThatTakesIt() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            for index in 1...20 { try ServeAPITests.post(server, contents: "猫か犬か \(index)", hashtags: ["ねこ", "いぬ"]) }
            let browser = ("Accept-Encoding", "gzip, deflate, br")
            let page = try server.request("GET", "/")
            let script = try #require(
                page.text.firstRange(of: "/static/app.js?v=").map { page.text[$0.lowerBound...].prefix { $0 != "\"" } })
            let style = try #require(
                page.text.firstRange(of: "/static/app.css?v=").map { page.text[$0.lowerBound...].prefix { $0 != "\"" } })
            for (path, plain) in [
                ("/", page), (String(script), try server.request("GET", String(script))),
                (String(style), try server.request("GET", String(style))),
            ] {
                // Before, every byte went as it is: 43 KB of HTML for twenty posters, 22 KB of
                // script, on a phone's slow link.
                #expect(plain.headers["content-encoding"] == nil, "no gzip for a client that does not ask: \(path)")
                #expect(plain.headers["vary"] == "Accept-Encoding", "\(path)")
                let zipped = try server.request("GET", path, headers: [browser])
                #expect(zipped.status == 200)
                #expect(zipped.headers["content-encoding"] == "gzip", "\(path)")
                #expect(zipped.headers["vary"] == "Accept-Encoding", "\(path)")
                #expect(zipped.headers["content-type"] == plain.headers["content-type"])
                #expect(zipped.body.count * 3 < plain.body.count, "\(path): \(zipped.body.count) of \(plain.body.count) bytes")
                #expect(try Self.gunzip(zipped.body) == plain.body, "\(path)")
                // Each representation has its own validator, and each answers 304.
                let etag = try #require(zipped.headers["etag"])
                #expect(etag != plain.headers["etag"])
                #expect(try server.request("GET", path, headers: [browser, ("If-None-Match", etag)]).status == 304, "\(path)")
                // gzip refused with q=0: sent as it is.
                let refused = try server.request("GET", path, headers: [("Accept-Encoding", "gzip;q=0, identity")])
                #expect(refused.headers["content-encoding"] == nil, "\(path)")
                #expect(refused.body == plain.body)
            }
        }

        @Test func pagesAndSearchesOfTheAPIGoGzippedToAClientThatTakesItAndSmallAnswersAsTheyAre() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            for index in 1...20 { try ServeAPITests.post(server, contents: "猫か犬か \(index)", hashtags: ["ねこ", "いぬ"]) }
            let browser = ("Accept-Encoding", "gzip")
            for path in ["/api/v1/posters?limit=20", "/api/v1/search?q=%E3%83%8D%E3%82%B3&limit=20&sort=popular"] {
                let plain = try server.request("GET", path)
                #expect(plain.status == 200)
                #expect(plain.headers["content-encoding"] == nil)
                // Asked twice: compressed the first time, kept with the cached page the second.
                for _ in 0..<2 {
                    let zipped = try server.request("GET", path, headers: [browser])
                    #expect(zipped.headers["content-encoding"] == "gzip", "\(path)")
                    #expect(zipped.headers["vary"] == "Accept-Encoding")
                    #expect(zipped.body.count * 4 < plain.body.count, "\(path): \(zipped.body.count) of \(plain.body.count) bytes")
                    #expect(try Self.gunzip(zipped.body) == plain.body, "\(path)")
                    let etag = try #require(zipped.headers["etag"])
                    #expect(try server.request("GET", path, headers: [browser, ("If-None-Match", etag)]).status == 304)
                }
            }
            // One poster (about 400 bytes) is one packet either way: as it is, and no Vary.
            let one = try server.request("GET", "/api/v1/posters/1", headers: [browser])
            #expect(one.status == 200)
            #expect(one.headers["content-encoding"] == nil)
            #expect(one.headers["vary"] == nil)
            // A vote moves the version: the new page is compressed anew and says the new count.
            #expect(try server.postJSON("/api/v1/posters/20/votes", #"{"side": 2}"#).status == 200)
            let after = try server.request("GET", "/api/v1/posters?limit=20", headers: [browser])
            #expect(String(decoding: try Self.gunzip(after.body), as: UTF8.self).contains(#""good2": 1"#))
        }
    }
}

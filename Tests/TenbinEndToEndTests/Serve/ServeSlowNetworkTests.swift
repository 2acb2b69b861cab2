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
    }
}

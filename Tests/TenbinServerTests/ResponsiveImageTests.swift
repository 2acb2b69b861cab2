import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// Every picture a page shows lists each thumbnail width the server makes, with the width it is
/// drawn at, so a phone fetches the smallest that fills it; the first screen's load at once.
@Suite struct ResponsiveImageTests {
    /// The `<img …>` tags of posters' pictures in `html` (not the form's previews), in order.
    static func images(_ html: String) -> [String] {
        html.ranges(of: "<img src=\"/thumbs/").map { range in String(html[range.lowerBound...].prefix { $0 != ">" }) }
    }

    @Test func everyCardPictureListsEveryWidthAndEachAnswers() async throws {
        let server = try TestServer()
        await server.post()
        let images = Self.images(await server.request("GET", "/").text)
        #expect(images.count == 2)
        let digest = try server.board.poster(id: 1).images[0].digest.hex
        let srcset = Thumbnails.widths.map { "/thumbs/\(digest)?w=\($0) \($0)w" }.joined(separator: ", ")
        #expect(images[0].contains("srcset=\"\(srcset)\""))
        #expect(images[0].contains("sizes=\"\(WebPage.cardImageSizes)\""))
        #expect(Thumbnails.widths == [160, 320, 480, 640])
        for width in Thumbnails.widths {
            let thumbnail = await server.request("GET", "/thumbs/\(digest)?w=\(width)")
            #expect(thumbnail.status == 200, "w=\(width)")
        }
    }

    @Test func theFirstCardLoadsFirstTheFirstScreenAtOnceAndTheRestLazily() async throws {
        let server = try TestServer { $0.rateLimited = false }
        for index in 0..<5 { await server.post(contents: "poster \(index)") }
        let images = Self.images(await server.request("GET", "/").text)
        #expect(images.count == 10)
        #expect(images.prefix(2).allSatisfy { $0.contains("fetchpriority=\"high\"") && !$0.contains("loading=") })
        #expect(images[2..<6].allSatisfy { !$0.contains("fetchpriority") && !$0.contains("loading=") })
        #expect(images[6...].allSatisfy { $0.contains("loading=\"lazy\"") })
    }

    @Test func aPosterPagesPicturesAreSizedForItsNarrowerCardAndLoadFirst() async throws {
        let server = try TestServer()
        await server.post()
        let images = Self.images(await server.request("GET", "/p/1").text)
        #expect(images.count == 2)
        #expect(images.allSatisfy { $0.contains("sizes=\"\(WebPage.posterPageImageSizes)\"") && $0.contains("fetchpriority=\"high\"") })
    }

    @Test func theScriptBuildsCardsWithTheSameWidthsAndSizes() throws {
        let script = String(decoding: try #require(WebPage.asset(named: "app.js")).body, as: UTF8.self)
        #expect(script.contains("const widths = [\(Thumbnails.widths.map(String.init).joined(separator: ", "))];"))
        #expect(script.contains("const cardImageSizes = \"\(WebPage.cardImageSizes)\";"))
    }
}

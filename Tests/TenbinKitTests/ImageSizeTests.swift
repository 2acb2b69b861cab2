import Testing

@testable import TenbinKit

@Suite struct ImageSizeTests {
    @Test func aThumbnailFitsItsBoxKeepingTheAspectRatio() {
        let box = ImageSize.thumbnail(width: 40, height: 40)
        #expect(box.fitting(width: 900, height: 600) == (40, 27))
        #expect(box.fitting(width: 600, height: 900) == (27, 40))
        #expect(ImageSize.thumbnail(width: 40, height: 10).fitting(width: 900, height: 600) == (15, 10))
    }

    @Test func aSmallImageIsNotEnlarged() {
        #expect(ImageSize.thumbnail(width: 40, height: 40).fitting(width: 20, height: 30) == (20, 30))
        #expect(ImageSize.full.fitting(width: 900, height: 600) == (900, 600))
    }

    @Test func aThinImageKeepsAtLeastOnePixel() {
        #expect(ImageSize.thumbnail(width: 10, height: 10).fitting(width: 5000, height: 2) == (10, 1))
    }

    @Test func thumbnailsOfSampleImagesComeOutUprightAndFitted() throws {
        let codec = ImageCodec()
        let box = ImageSize.thumbnail(width: 40, height: 40)
        for (folder, images) in Fixtures.sampleFolders {
            for path in images {
                let bytes = try Fixtures.bytes(path)
                let header = try codec.probe(bytes, source: path)
                let upright = header.orientation.swapsSides ? (header.height, header.width) : (header.width, header.height)
                let thumbnail = try codec.decode(bytes, size: box, source: path)
                let expected = box.fitting(width: upright.0, height: upright.1)
                #expect(thumbnail.width == expected.width && thumbnail.height == expected.height, "\(folder)/\(path)")
            }
        }
    }

    @Test func aPortraitStoredSidewaysComesOutTall() throws {
        let path = Fixtures.sample("03-phone-portrait/a-rotated.jpg")
        let thumbnail = try ImageCodec().decode(Fixtures.bytes(path), size: .thumbnail(width: 40, height: 40), source: path)
        #expect(thumbnail.width == 30 && thumbnail.height == 40)
    }

    @Test func aBoardsPipelineLoadsBothImagesOfAPoster() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let sample = Fixtures.sampleFolders[0].images
        let poster = try board.post(PosterDraft(image1: .file(sample[0]), image2: .file(sample[1])))
        let pipeline = board.imagePipeline(cacheLimits: CacheLimits(bytes: 32 << 20, count: 10))
        let results = await pipeline.images(for: poster.imageRequests(size: .thumbnail(width: 30, height: 30)))
        let images = try results.map { try $0.get() }
        #expect(images.map(\.width) == [30, 30])
        #expect(images.map(\.height) == [20, 20])
        let full = try await pipeline.image(for: ImageRequest(poster.images[0].digest))
        #expect(full.width == poster.images[0].width && full.height == poster.images[0].height)
        #expect(pipeline.cache.statistics.count == 3)
    }
}

import Testing

@testable import TenbinKit

@Suite struct ImagePipelineTests {
    /// A digest for test blob `number`.
    static func digest(_ number: Int) -> Digest { Digest(of: [UInt8(number)]) }

    /// A pipeline over fake blobs: blob n decodes to an n×1 gray image. Reads wait for
    /// `gate` when one is given, and reads and decodes are counted.
    struct Fixture {
        let reads = Counter()
        let readsRunning = Counter()
        let readsCancelled = Counter()
        let decodes = Counter()
        let pipeline: ImagePipeline

        init(
            gate: Gate? = nil, failing: Set<Digest> = [], limits: CacheLimits = CacheLimits(bytes: 1 << 20, count: 100),
            concurrency: Int = 2
        ) {
            let (reads, running, cancelled, decodes) = (reads, readsRunning, readsCancelled, decodes)
            let numbers = Dictionary(uniqueKeysWithValues: (1...50).map { (ImagePipelineTests.digest($0), $0) })
            pipeline = ImagePipeline(
                ImagePipeline.Configuration(
                    cache: LRUCache<ImageRequest, PixelBuffer>(limits: limits), maxConcurrentLoads: concurrency,
                    read: { digest in
                        reads.increment()
                        running.add(1)
                        defer { running.add(-1) }
                        do {
                            try await gate?.wait()
                        } catch {
                            cancelled.increment()
                            throw error
                        }
                        if failing.contains(digest) { throw BlobError(.read, path: "blobs/\(digest.hex)", digest: digest, errno: 2) }
                        return [UInt8(numbers[digest]!)]  // every test digest is in the table
                    },
                    decode: { bytes, _ in
                        decodes.increment()
                        return PixelBuffer(
                            width: Int(bytes[0]), height: 1, channels: 1, pixels: [UInt8](repeating: bytes[0], count: Int(bytes[0])))
                    }))
        }
    }

    /// Yields until `condition` holds (the tasks it waits for are already running).
    static func until(sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async {
        await waitUntil("the pipeline's callers to arrive", sourceLocation: sourceLocation, condition)
    }

    @Test func oneHundredConcurrentRequestsForOneImageDecodeItOnce() async throws {
        let gate = Gate()
        // No cache: only sharing the load in flight can keep this to one decode.
        let fixture = Fixture(gate: gate, limits: CacheLimits(bytes: 0, count: 0))
        let request = ImageRequest(Self.digest(7))
        let pipeline = fixture.pipeline
        let callers = (0..<100).map { _ in Task { try await pipeline.image(for: request) } }
        await Self.until { pipeline.callers(waitingFor: request) == 100 }
        gate.open()
        for caller in callers { #expect(try await caller.value.width == 7) }
        #expect(fixture.decodes.count == 1)
        #expect(fixture.reads.count == 1)
        #expect(pipeline.loadsInFlight == 0)
    }

    @Test func aCachedImageIsNotLoadedAgain() async throws {
        let fixture = Fixture()
        let request = ImageRequest(Self.digest(3), size: .thumbnail(width: 10, height: 10))
        _ = try await fixture.pipeline.image(for: request)
        let again = try await fixture.pipeline.image(for: request)
        #expect(again.width == 3)
        #expect(fixture.decodes.count == 1)
        #expect(fixture.pipeline.cache.statistics.hits == 1)
    }

    @Test func theSameBlobAtAnotherSizeIsAnotherImage() async throws {
        let fixture = Fixture()
        _ = try await fixture.pipeline.image(for: ImageRequest(Self.digest(3)))
        _ = try await fixture.pipeline.image(for: ImageRequest(Self.digest(3), size: .thumbnail(width: 2, height: 2)))
        #expect(fixture.decodes.count == 2)
    }

    @Test func aLoadCancelledByAllItsCallersStops() async throws {
        let gate = Gate()
        let fixture = Fixture(gate: gate)
        let request = ImageRequest(Self.digest(5))
        let pipeline = fixture.pipeline
        let callers = (0..<3).map { _ in Task { try await pipeline.image(for: request) } }
        await Self.until { pipeline.callers(waitingFor: request) == 3 && fixture.readsRunning.count == 1 }
        for caller in callers { caller.cancel() }
        for caller in callers {
            await #expect(throws: CancellationError.self) { try await caller.value }
        }
        // The read was waiting at the gate, so it can only have ended by being cancelled.
        await Self.until { fixture.readsRunning.count == 0 }
        #expect(fixture.readsCancelled.count == 1)
        #expect(fixture.decodes.count == 0)
        #expect(pipeline.loadsInFlight == 0)
        // Asking again starts a new load.
        gate.open()
        #expect(try await pipeline.image(for: request).width == 5)
        #expect(fixture.reads.count == 2)
        #expect(fixture.decodes.count == 1)
    }

    @Test func aLoadGoesOnWhileOneCallerStillWantsIt() async throws {
        let gate = Gate()
        let fixture = Fixture(gate: gate)
        let request = ImageRequest(Self.digest(9))
        let pipeline = fixture.pipeline
        let leaving = Task { try await pipeline.image(for: request) }
        let staying = Task { try await pipeline.image(for: request) }
        await Self.until { pipeline.callers(waitingFor: request) == 2 && fixture.readsRunning.count == 1 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        gate.open()
        #expect(try await staying.value.width == 9)
        #expect(fixture.readsCancelled.count == 0)
        #expect(fixture.decodes.count == 1)
    }

    @Test func aCallerCancelledBeforeAskingGetsCancellationError() async throws {
        let fixture = Fixture(gate: Gate())
        let pipeline = fixture.pipeline
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pipeline.image(for: ImageRequest(Self.digest(4)))
        }
        await #expect(throws: CancellationError.self) { try await caller.value }
        await Self.until { fixture.pipeline.loadsInFlight == 0 }
        #expect(fixture.decodes.count == 0)
    }

    @Test func batchResultsComeInRequestOrderWithAFailureInTheMiddle() async throws {
        let fixture = Fixture(failing: [Self.digest(3)])
        let requests = (1...5).map { ImageRequest(Self.digest($0)) }
        let results = await fixture.pipeline.images(for: requests)
        #expect(results.count == 5)
        for (index, result) in results.enumerated() {
            if index == 2 {
                #expect(throws: BlobError.self) { try result.get() }
            } else {
                #expect(try result.get().width == index + 1)
            }
        }
    }

    @Test func aBatchRunsNoMoreLoadsAtOnceThanItsLimit() async throws {
        let fixture = Fixture(concurrency: 3)
        let results = await fixture.pipeline.images(for: (1...40).map { ImageRequest(Self.digest($0)) })
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(fixture.readsRunning.highest <= 3)
        #expect(fixture.reads.count == 40)
    }

    @Test func aBatchAnswersCachedImagesAndSharesRepeatedOnes() async throws {
        let fixture = Fixture()
        _ = try await fixture.pipeline.image(for: ImageRequest(Self.digest(1)))
        let requests = [1, 2, 2, 2, 1].map { ImageRequest(Self.digest($0)) }
        let results = await fixture.pipeline.images(for: requests)
        #expect(try results.map { try $0.get().width } == [1, 2, 2, 2, 1])
        #expect(fixture.decodes.count == 2)
    }

    @Test func cancellingABatchStopsItsLoadsAndFailsWhatWasNotLoaded() async throws {
        let gate = Gate()
        let fixture = Fixture(gate: gate, concurrency: 2)
        let pipeline = fixture.pipeline
        _ = try await ImagePipeline(
            ImagePipeline.Configuration(
                cache: pipeline.cache, maxConcurrentLoads: 1, read: { [UInt8($0 == Self.digest(1) ? 1 : 0)] },
                decode: { bytes, _ in PixelBuffer(width: 1, height: 1, channels: 1, pixels: bytes) })
        ).image(for: ImageRequest(Self.digest(1)))  // image 1 is cached
        let batch = Task { await pipeline.images(for: (1...6).map { ImageRequest(Self.digest($0)) }) }
        await Self.until { fixture.readsRunning.count == 2 }
        batch.cancel()
        let results = await batch.value
        #expect(try results[0].get().width == 1)
        for result in results.dropFirst() {
            #expect(throws: CancellationError.self) { try result.get() }
        }
        await Self.until { fixture.readsRunning.count == 0 }
        #expect(fixture.readsCancelled.count == 2)
        #expect(fixture.decodes.count == 0)
    }

    @Test func aFailedLoadIsNotCachedAndCanBeRetried() async throws {
        let fixture = Fixture(failing: [Self.digest(8)])
        let request = ImageRequest(Self.digest(8))
        await #expect(throws: BlobError.self) { try await fixture.pipeline.image(for: request) }
        await #expect(throws: BlobError.self) { try await fixture.pipeline.image(for: request) }
        #expect(fixture.reads.count == 2)
        #expect(fixture.pipeline.cache.statistics.count == 0)
    }
}

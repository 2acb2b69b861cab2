import Dispatch
import Foundation
import TenbinKit
import TenbinSQLite
import Testing

@testable import TenbinServer

/// The server's application and router over a fresh SQLite board in a scratch folder, driven
/// in process: a request goes in as a head (and a body) and its answer comes out, without a
/// socket or libmicrohttpd. Route behaviour is tested here; what only a real connection shows
/// (body limits before reading, multipart parsing, keep-alive, feeds on the wire, shutdown) is
/// tested end to end against the binary.
///
/// Forms are handed to the route as libmicrohttpd's form reader would hand them: as parts.
final class TestServer: Sendable {
    let folder: String
    /// Whether the folder is this server's to remove.
    private let ownsFolder: Bool
    let board: Board
    let app: Application
    let router: Router
    /// The router of the metrics address (`--metrics-listen`), as the server would build it.
    let monitoringRouter: Router
    /// The peer address requests come from.
    let peer: String

    /// A server with `configure`'s changes to the default configuration (rate limits on, as
    /// `tenbin serve` starts).
    /// Without `watchingChanges`, the read cache keeps answers until this server's own writes
    /// drop them: what another process commits is never heard (tests of the writes' own
    /// invalidation).
    convenience init(
        peer: String = "127.0.0.1", watchingChanges: Bool = true, folder: String? = nil,
        _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        try self.init(peer: peer, watchingChanges: watchingChanges, folder: folder, board: { _ in }, configure)
    }

    /// A server whose board's configuration `configureBoard` changes (a scanner); on the store
    /// in `folder` when given (a second server on one store, which leaves the folder to the
    /// first), else on a store of its own.
    init(
        peer: String = "127.0.0.1", watchingChanges: Bool = true, folder shared: String? = nil,
        board configureBoard: (inout Board.Configuration) -> Void,
        _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        ownsFolder = shared == nil
        folder = shared ?? FileManager.default.temporaryDirectory.appendingPathComponent("tenbin-server-\(UUID().uuidString)").path
        var configuration = ServerConfiguration()
        configuration.threads = 1
        configuration.boardThreads = 2
        configure(&configuration)
        var boardConfiguration = Board.Configuration()
        configureBoard(&boardConfiguration)
        board = try Board(folder: folder, configuration: boardConfiguration, create: true)
        app = try Application(configuration: configuration, gateway: BoardGateway(board: board))
        router = Router(app: app, routes: app.mainRoutes)
        monitoringRouter = Router(app: app, routes: app.monitoringRoutes)
        self.peer = peer
        if watchingChanges { app.startChangeWatch() } else { app.readCache.resume() }
    }

    deinit {
        app.stop()
        if ownsFolder { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// A request's body as the route receives it.
    enum Body {
        case bytes([UInt8])
        /// Parts of a form: name, bytes and, for a file, its name.
        case form([(name: String, bytes: [UInt8], filename: String?)])
    }

    /// Sends one request (to the metrics address with `monitoring`); `Host` is this server's
    /// unless given.
    func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: Body? = nil, peer: String? = nil,
        monitoring: Bool = false
    ) async -> TestReply {
        let router = monitoring ? monitoringRouter : router
        let peer = peer ?? self.peer
        var fields: [String: String] = ["host": "127.0.0.1:8080"]
        for (name, value) in headers { fields[name.lowercased()] = value }
        if case .form = body, fields["content-type"] == nil { fields["content-type"] = "multipart/form-data; boundary=x" }
        if case .bytes(let bytes) = body { fields["content-length"] = String(bytes.count) }
        let head = RequestHead(method: method, target: target, headers: HeaderFields(fields), peerAddress: peer)
        let admission = router.admit(head)
        let reply: Reply
        switch admission.action {
        case .reply(let answer):
            reply = answer
        case .read(let limit, let then):
            reply = then(head, Self.read(body, within: limit))
        }
        var response = SecurityHeaders.complete(await Self.answer(reply))
        let bodyCount = response.bodyCount
        if case .file(let descriptor, let size) = response.body { response.body = .bytes(Self.readAll(descriptor, size)) }
        if case .shared(let shared) = response.body { response.body = .bytes(shared.array) }
        if case .prepared(let prepared) = response.body { response.body = .bytes(prepared.bytes.array) }
        router.finished(
            ExchangeRecord(
                method: method, path: String(head.rawPath), route: admission.route, status: response.status,
                bytes: response.bodyCount, duration: .zero, client: peer))
        return TestReply(response: response, route: admission.route, bodyCount: bodyCount)
    }

    /// A file body's bytes, as libmicrohttpd would send them; the descriptor is closed after, as
    /// it would close it.
    private static func readAll(_ descriptor: Int32, _ size: Int) -> [UInt8] {
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: size)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, 0) }
        return Array(bytes.prefix(max(0, read)))
    }

    /// JSON text sent as `application/json`.
    func request(_ method: String, _ target: String, json: String, headers: [(String, String)] = [], peer: String? = nil) async
        -> TestReply
    {
        await request(method, target, headers: [("Content-Type", "application/json")] + headers, body: .bytes(Array(json.utf8)), peer: peer)
    }

    /// Waits (at most 20 s) until the change watch listens and reads may be cached.
    func waitUntilListening() async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !app.readCache.listening {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// What libmicrohttpd would hand the route: the body within its limit.
    private static func read(_ body: Body?, within limit: BodyLimit) -> RequestBody {
        switch (body, limit) {
        case (.form(let parts), .form(let limits)):
            var form = FormParts(limits: limits)
            for part in parts {
                do throws(FormParts.Refusal) {
                    try part.bytes.withUnsafeBufferPointer { chunk throws(FormParts.Refusal) in
                        try form.receive(name: part.name, filename: part.filename, contentType: nil, chunk: chunk, offset: 0)
                    }
                } catch {
                    return .refused(APIError(formRefusal: error))
                }
            }
            return .form(form)
        case (.bytes(let bytes), _):
            guard bytes.count <= limit.maximumBytes else { return .refused(.tooLarge("over the limit")) }
            return .bytes(bytes)
        case (nil, _):
            return .bytes([])
        case (.form, .bytes):
            return .refused(.badRequest("a form where bytes were expected"))
        }
    }

    /// Waits for a reply however it is produced.
    private static func answer(_ reply: Reply) async -> HTTPResponse {
        switch reply {
        case .now(let response):
            return response
        case .callback(let work):
            return await withCheckedContinuation { continuation in
                work { continuation.resume(returning: $0) }
            }
        }
    }

    // MARK: Posters

    static let cat = Array(FileManager.default.contents(atPath: "\(root)/SampleImages/01-cats-or-dogs/1-cat.jpg") ?? Data())
    static let dog = Array(FileManager.default.contents(atPath: "\(root)/SampleImages/01-cats-or-dogs/2-dog.jpg") ?? Data())

    /// The package's folder.
    static let root: String = {
        var path = #filePath
        for _ in 0..<4 { path = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
        return path
    }()

    /// Posts a poster of the sample cat and dog through the API; its reply.
    @discardableResult
    func post(contents: String = "cats or dogs", hashtags: [String] = [], headers: [(String, String)] = []) async -> TestReply {
        var parts: [(name: String, bytes: [UInt8], filename: String?)] = [
            ("image1", Self.cat, "cat.jpg"), ("image2", Self.dog, "dog.jpg"), ("contents", Array(contents.utf8), nil),
        ]
        for tag in hashtags { parts.append(("hashtags", Array(tag.utf8), nil)) }
        return await request("POST", "/api/v1/posters", headers: headers, body: .form(parts))
    }

    /// A form's fields as libmicrohttpd's urlencoded reader hands them to the route.
    func request(
        _ method: String, _ target: String, urlencoded fields: [(String, String)], headers: [(String, String)] = [],
        peer: String? = nil
    ) async -> TestReply {
        await request(
            method, target, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
            body: .form(fields.map { (name: $0.0, bytes: Array($0.1.utf8), filename: nil) }), peer: peer)
    }

    /// A poster's JSON object as `GET /api/v1/posters/ID` answers it.
    func poster(_ id: Int64) async -> [String: Any] {
        await request("GET", "/api/v1/posters/\(id)").json
    }

    /// Whether the store holds no blob file and the board's check finds no problem.
    func storeIsClean() throws -> Bool {
        let blobs = (FileManager.default.enumerator(atPath: folder + "/blobs")?.allObjects as? [String] ?? []).filter { $0.count > 3 }
        return try blobs.isEmpty && board.check().isSound
    }

    /// Votes through the API.
    @discardableResult
    func vote(_ id: Int64, side: Int, times: Int = 1, headers: [(String, String)] = [], peer: String? = nil) async -> TestReply {
        await request("POST", "/api/v1/posters/\(id)/votes", json: "{\"side\": \(side), \"times\": \(times)}", headers: headers, peer: peer)
    }
}

/// An answer as a client reads it.
struct TestReply: Sendable {
    let response: HTTPResponse
    /// The route's label it was counted under.
    let route: String
    /// Bytes of the body as it would be announced (`Content-Length`, also for `HEAD`).
    let bodyCount: Int?

    var status: Int { response.status }

    /// A header field by name (any case).
    func header(_ name: String) -> String? { response.header(name) }

    var bytes: [UInt8] {
        if case .bytes(let bytes) = response.body { return bytes }
        return []
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    var errorKind: String? { (json["error"] as? [String: Any])?["kind"] as? String }
    var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
}

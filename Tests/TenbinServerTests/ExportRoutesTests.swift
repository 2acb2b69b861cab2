import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// `GET /api/v1/export.csv` and `.jsonl` in process: the admin token's, every poster, the
/// text exact and quoted as RFC 4180 has it.
@Suite struct ExportRoutesTests {
    static let token = "export-token-for-tests-0123456789"
    static let auth = [("Authorization", "Bearer \(token)")]

    @Test func theExportNeedsTheAdminToken() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post()
        #expect(await server.request("GET", "/api/v1/export.csv").status == 401)
        #expect(
            await server.request("GET", "/api/v1/export.jsonl", headers: [("Authorization", "Bearer wrong-token-0123456789")]).status == 401
        )
        let off = try TestServer()
        #expect(await off.request("GET", "/api/v1/export.csv", headers: Self.auth).status == 403)
    }

    @Test func theCSVHoldsEveryPosterWithItsTextQuotedAndExact() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post(contents: "plain", hashtags: ["cats", "dogs"])
        await server.post(contents: "He said \"hi\", then\nleft")
        await server.post(contents: "=1+1")
        await server.vote(2, side: 2, times: 3)
        let reply = await server.request("GET", "/api/v1/export.csv", headers: Self.auth)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.header("content-type") == "text/csv; charset=utf-8; header=present")
        #expect(reply.header("content-disposition") == "attachment; filename=\"tenbin-posters.csv\"")
        #expect(reply.header("cache-control") == "no-store")
        let text = String(decoding: reply.bytes, as: UTF8.self)
        let poster2 = await server.poster(2)
        let image1 = ((poster2["images"] as? [[String: Any]])?[0]["digest"] as? String) ?? "?"
        let image2 = ((poster2["images"] as? [[String: Any]])?[1]["digest"] as? String) ?? "?"
        let created = poster2["createdAt"] as? String ?? "?"
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        #expect(lines.first == "id,created,question,hashtags,good1,good2,image1,image2")
        #expect(text.contains("\r\n2,\(created),\"He said \"\"hi\"\", then\nleft\",,0,3,\(image1),\(image2)\r\n"), "\(text)")
        #expect(text.contains(",plain,#cats #dogs,0,0,"))
        #expect(text.contains(",=1+1,,0,0,"), "without excel=1 the text is exact")
        #expect(text.hasSuffix("\r\n"))
        #expect(lines.count == 5, "a header, three posters, and the empty rest after the last CRLF")

        let excel = await server.request("GET", "/api/v1/export.csv?excel=1", headers: Self.auth)
        let excelBytes = excel.bytes
        #expect(Array(excelBytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
        #expect(String(decoding: excelBytes, as: UTF8.self).contains(",'=1+1,,0,0,"))
    }

    @Test func theJSONLinesHoldOnePosterObjectPerLine() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post(contents: "one")
        await server.post(contents: "two\nlines", hashtags: ["x"])
        let reply = await server.request("GET", "/api/v1/export.jsonl", headers: Self.auth)
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "application/jsonl; charset=utf-8")
        let lines = String(decoding: reply.bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.map { $0["id"] as? Int } == [1, 2])
        #expect(objects.last?["contents"] as? String == "two\nlines")
        #expect(objects.last?["hashtags"] as? [String] == ["x"])
    }

    @Test func timelinesComeAsATableOfBucketsOrAnArrayPerPoster() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        await server.post(contents: "one")
        await server.post(contents: "two")
        await server.vote(2, side: 1, times: 2)
        await server.vote(2, side: 2, times: 5)
        let csv = await server.request("GET", "/api/v1/export.csv?timelines=1", headers: Self.auth)
        #expect(csv.status == 200, "\(csv.text)")
        #expect(csv.header("content-disposition") == "attachment; filename=\"tenbin-timelines.csv\"")
        let lines = String(decoding: csv.bytes, as: UTF8.self).split(separator: "\r\n")
        #expect(lines.first == "id,start,bucket,good1,good2")
        let fields = lines.dropFirst().map { $0.split(separator: ",") }
        #expect(fields.allSatisfy { $0.count == 5 && $0[0] == "2" && $0[2] == "minute" }, "\(lines)")
        #expect(fields.reduce(0) { $0 + (Int($1[3]) ?? 0) } == 2 && fields.reduce(0) { $0 + (Int($1[4]) ?? 0) } == 5)
        let jsonl = await server.request("GET", "/api/v1/export.jsonl?timelines=1", headers: Self.auth)
        let objects = String(decoding: jsonl.bytes, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect((objects.first?["timeline"] as? [Any])?.isEmpty == true)
        let buckets = objects.last?["timeline"] as? [[String: Any]] ?? []
        #expect(buckets.reduce(0) { $0 + ($1["good2"] as? Int ?? 0) } == 5)
        let wrong = await server.request("GET", "/api/v1/export.jsonl?timelines=yes", headers: Self.auth)
        #expect(wrong.status == 400)
        #expect(wrong.errorMessage == "timelines must be 0 or 1")
    }

    @Test func badExportQueriesAreRefusedWithTheirReason() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        let wrong = await server.request("GET", "/api/v1/export.csv?excel=yes", headers: Self.auth)
        #expect(wrong.status == 400)
        #expect(wrong.errorMessage == "excel must be 0 or 1")
        let jsonExcel = await server.request("GET", "/api/v1/export.jsonl?excel=1", headers: Self.auth)
        #expect(jsonExcel.status == 400)
        #expect(jsonExcel.errorMessage == "excel=1 is for export.csv")
        #expect(await server.request("POST", "/api/v1/export.csv", headers: Self.auth).status == 405)
    }
}

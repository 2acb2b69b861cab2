import Testing

@testable import TenbinServer

/// The header fields a request keeps: only those tenbin reads, by name in any case, with every
/// field counted toward the size limit.
@Suite struct HeaderFieldsTests {
    @Test func onlyTheFieldsTenbinReadsAreKeptButEveryFieldIsCounted() {
        var fields = HeaderFields()
        let sent: [(String, String?)] = [
            ("Host", "example.org"), ("Cookie", "a=1"), ("ACCEPT-Encoding", "gzip"), ("X-Forwarded-For", "192.0.2.1"),
            ("x-forwarded-for", "198.51.100.2"), ("Empty", nil),
        ]
        for (name, value) in sent {
            name.withCString { name in
                if let value {
                    value.withCString { fields.add(name: name, value: $0) }
                } else {
                    fields.add(name: name, value: nil)
                }
            }
        }
        #expect(fields["host"] == "example.org")
        #expect(fields["accept-encoding"] == "gzip", "names match in any case")
        #expect(fields["x-forwarded-for"] == "192.0.2.1, 198.51.100.2", "a repeated field's values are joined")
        #expect(fields["origin"] == nil)
        #expect(fields.bytes == sent.reduce(0) { $0 + $1.0.utf8.count + ($1.1?.utf8.count ?? 0) }, "unread fields count too")
        #expect(HeaderFields(["Host": "example.org", "Cookie": "a=1"])["host"] == "example.org")
    }

    @Test func everyKnownFieldIsKeptInItsOwnPlace() {
        var fields = HeaderFields()
        for name in HeaderFields.known {
            name.uppercased().withCString { upper in name.withCString { fields.add(name: upper, value: $0) } }
        }
        for name in HeaderFields.known { #expect(fields[name] == name, "\(name)") }
    }

    @Test func anAnswersFieldIsFoundByNameInAnyCaseAndOnlyByItsName() {
        let response = HTTPResponse(status: 200, headers: [("Content-Type", "text/plain"), ("X-A", "1")])
        #expect(response.header("content-type") == "text/plain")
        #expect(response.header("CONTENT-TYPE") == "text/plain")
        #expect(response.header("Content-Typf") == nil)
        #expect(response.header("x-{") == nil, "only letters fold")
        #expect(response.header("Content-Type-") == nil)
    }
}

/// A route's path: literal segments and named parameters, typed where declared.
///
/// Declared as text: `/api/v1/posters/{id:poster}/votes`. `{name}` matches any one non-empty
/// segment (still percent-encoded); `{name:poster}` matches only a poster id (1 or more, in
/// digits) and is handed to the handler as an `Int64`. A path whose parameter does not parse
/// names nothing (404), as a path with a wrong literal does.
struct PathPattern: Sendable, CustomStringConvertible {
    /// One segment of a pattern.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case text(String)
        case poster(String)
    }

    let segments: [Segment]

    /// Parses a declaration; a malformed one is a programming error in the route table.
    init(_ text: String) {
        precondition(text.hasPrefix("/"), "a route's path starts with /")  // the table's own text
        segments = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { part in
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return .literal(String(part)) }
            let inner = part.dropFirst().dropLast().split(separator: ":")
            switch inner.count == 2 ? inner[1] : "" {
            case "poster": return .poster(String(inner[0]))
            case "": return .text(String(inner[0]))
            default: preconditionFailure("unknown parameter type in \(text)")  // the table's own text
            }
        }
    }

    /// As in a route's label: `/api/v1/posters/{id}`.
    var description: String {
        "/"
            + segments.map { segment in
                switch segment {
                case .literal(let text): text
                case .text(let name), .poster(let name): "{\(name)}"
                }
            }.joined(separator: "/")
    }

    /// Whether the segments' shape fits, literals and parameters alike: nil when not, else
    /// the parameters.
    func match(_ parts: ArraySlice<Substring>) -> PathParameters? {
        guard parts.count == segments.count else { return nil }
        // The literals first: most routes tried do not match, and they then allocate nothing.
        for (segment, part) in zip(segments, parts) {
            // Bytes, not characters: a literal is ASCII and the part still percent-encoded.
            if case .literal(let text) = segment, !Self.same(part, text) { return nil }
        }
        var parameters = PathParameters()
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal:
                continue
            case .text(let name):
                guard !part.isEmpty else { return nil }
                parameters.values.append((name, .text(part)))
            case .poster(let name):
                guard let id = APIInput.posterID(part) else { return nil }
                parameters.values.append((name, .poster(id)))
            }
        }
        return parameters
    }
}

extension PathPattern {
    /// Whether a part of the path is a literal byte for byte (one `memcmp` over both strings'
    /// bytes, where iterating the views compared them a byte at a time).
    static func same(_ part: Substring, _ literal: String) -> Bool { part.hasSameUTF8(as: literal) }
}

/// The parameters a path matched, by name.
struct PathParameters: Sendable {
    enum Value: Sendable, Hashable {
        case text(Substring)
        case poster(Int64)
    }

    var values: [(name: String, value: Value)] = []

    /// The poster id declared as `{name:poster}`.
    func poster(_ name: String) -> Int64 {
        for (key, value) in values where key == name {
            if case .poster(let id) = value { return id }
        }
        preconditionFailure("the route declares no poster parameter \(name)")  // the table and its handler disagree
    }

    /// The segment declared as `{name}`, still percent-encoded.
    func text(_ name: String) -> Substring {
        for (key, value) in values where key == name {
            if case .text(let text) = value { return text }
        }
        preconditionFailure("the route declares no parameter \(name)")  // the table and its handler disagree
    }
}

/// The bounds a form body is read within.
struct FormLimits: Sendable {
    /// The most bytes the whole body may hold.
    var maximumBytes: Int
    /// The most parts (fields and files) it may have.
    var maximumParts: Int
    /// The most bytes one file part may hold.
    var maximumFileBytes: Int
    /// The most bytes one text field may hold.
    var maximumFieldBytes: Int
}

/// The parts of a form body, gathered chunk by chunk as the body arrives, within
/// ``FormLimits``. Holds no knowledge of what the fields mean.
struct FormParts: Sendable {
    /// One field or file.
    struct Part: Sendable, Equatable {
        /// The field name.
        var name: String
        /// The file name a browser sent with a file part; nil for a text field.
        var filename: String?
        /// The part's own `Content-Type`, when it has one.
        var contentType: String?
        /// The part's bytes.
        var bytes: [UInt8]
    }

    /// Why a form is refused while it is read.
    enum Refusal: Error, Equatable {
        case tooManyParts(Int)
        case partTooLarge(name: String, limit: Int)
        case bodyTooLarge(Int)
    }

    let limits: FormLimits
    /// The parts in the order they arrived.
    private(set) var parts: [Part] = []
    private var total = 0

    /// An empty form read within `limits`.
    init(limits: FormLimits) {
        self.limits = limits
    }

    /// Adds a chunk of the part named `name`. A chunk at offset 0 starts a new part (unless
    /// the current part of that name is still empty: the parser may announce a part before
    /// its first bytes); a later offset continues the current part.
    mutating func receive(name: String, filename: String?, contentType: String?, chunk: UnsafeBufferPointer<UInt8>, offset: UInt64)
        throws(Refusal)
    {
        let startsPart: Bool
        if let last = parts.last, last.name == name, offset > 0 || last.bytes.isEmpty {
            startsPart = false
        } else {
            startsPart = true
        }
        if startsPart {
            guard parts.count < limits.maximumParts else { throw .tooManyParts(limits.maximumParts) }
            parts.append(Part(name: name, filename: filename, contentType: contentType, bytes: []))
        }
        let limit = parts[parts.count - 1].filename == nil ? limits.maximumFieldBytes : limits.maximumFileBytes
        guard parts[parts.count - 1].bytes.count + chunk.count <= limit else { throw .partTooLarge(name: name, limit: limit) }
        total += chunk.count
        guard total <= limits.maximumBytes else { throw .bodyTooLarge(limits.maximumBytes) }
        parts[parts.count - 1].bytes.append(contentsOf: chunk)
    }

    /// Every part named `name`, in order.
    func all(_ name: String) -> [Part] { parts.filter { $0.name == name } }
}

import CMeCab
import Glibc

/// MeCab, the morphological analyser that gives each word of a Japanese text its reading
/// (猫 → ネコ, 東京 → トウキョウ), loaded on first use (Sources/CMeCab/mecab.c). The only
/// file that imports CMeCab.
///
/// One model (the dictionary, memory-mapped) is shared; MeCab's model is thread-safe, its
/// taggers and lattices are not, so each parse takes a tagger and lattice pair out of a small
/// pool and puts it back (`workers`), and concurrent imports never wait on one another.
final class MeCab: Sendable {
    /// One word of a parsed text.
    struct Token: Equatable {
        /// The word as written.
        var surface: String
        /// Its reading in katakana, as the dictionary gives it; nil for a word the dictionary
        /// does not know or gives no reading for.
        var reading: String?
        /// Whether white space came before it (MeCab skips spaces; they still end a stretch).
        var followsSpace: Bool
    }

    private let model: Model
    private let workers: Locked<[Worker]>

    /// Loads libmecab and its dictionary: MeCab's own configuration (Debian's `/etc/mecabrc`,
    /// the dictionary `mecab-ipadic-utf8` installs), or the dictionary folder `dictionary`.
    /// Throws ``ReadingsUnavailable`` naming what is missing.
    init(dictionary: String?) throws(ReadingsUnavailable) {
        var reason = [CChar](repeating: 0, count: Int(TB_MECAB_ERROR_CAPACITY))
        guard tb_mecab_load(&reason) == 0 else {
            throw ReadingsUnavailable(reason: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let arguments = dictionary.map { "-d \($0)" } ?? ""
        guard let model = mecab_model_new2(arguments) else {
            // With no model the message is MeCab's global one (mecab_strerror(NULL)).
            let detail = mecab_strerror(nil).map { String(cString: $0) } ?? "unknown reason"
            throw ReadingsUnavailable(
                reason: "MeCab has no dictionary (\(dictionary ?? "install mecab-ipadic-utf8")): \(detail)")
        }
        self.model = Model(model)
        workers = Locked([])
    }

    /// The words of `text`, in order.
    func tokens(of text: String) -> [Token] {
        let worker = workers.withLock { $0.popLast() } ?? Worker(model)
        defer { workers.withLock { $0.append(worker) } }
        return worker.tokens(of: text)
    }

    /// The shared model; freed when the analyser and every worker made from it are gone.
    private final class Model: @unchecked Sendable {
        // MeCab documents its model as thread-safe (taggers are made from it on any thread); it
        // is never changed after it is made.
        let pointer: OpaquePointer

        init(_ pointer: OpaquePointer) { self.pointer = pointer }

        deinit { mecab_model_destroy(pointer) }
    }

    /// A tagger and its lattice, used by one parse at a time.
    private final class Worker: @unchecked Sendable {
        // Used by one thread at a time: a worker is reached only by taking it out of the pool
        // under its lock, and put back when the parse is done.
        private let model: Model
        private let tagger: OpaquePointer?
        private let lattice: OpaquePointer?

        init(_ model: Model) {
            self.model = model
            tagger = mecab_model_new_tagger(model.pointer)
            lattice = mecab_model_new_lattice(model.pointer)
        }

        deinit {
            if let lattice { mecab_lattice_destroy(lattice) }
            if let tagger { mecab_destroy(tagger) }
        }

        func tokens(of text: String) -> [Token] {
            // Made from a model that loaded, these fail only without memory: no words then.
            guard let tagger, let lattice else { return [] }
            var text = text
            return text.withUTF8 { bytes in
                guard let base = bytes.baseAddress else { return [] }
                // The lattice keeps a pointer to the sentence, not a copy: every node is read
                // inside this closure, while `bytes` is alive.
                let sentence = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                mecab_lattice_set_sentence2(lattice, sentence, bytes.count)
                defer { mecab_lattice_clear(lattice) }
                guard mecab_parse_lattice(tagger, lattice) != 0 else { return [] }
                var tokens: [Token] = []
                var node = mecab_lattice_get_bos_node(lattice)
                while let current = node {
                    let stat = Int32(current.pointee.stat)
                    if stat == Int32(MECAB_NOR_NODE) || stat == Int32(MECAB_UNK_NODE), let surface = current.pointee.surface {
                        let length = Int(current.pointee.length)
                        let word = UnsafeRawBufferPointer(start: surface, count: length)
                        tokens.append(
                            Token(
                                surface: String(decoding: word, as: UTF8.self),
                                reading: current.pointee.feature.flatMap { Self.reading(ofFeature: $0) },
                                followsSpace: current.pointee.rlength > current.pointee.length))
                    }
                    node = current.pointee.next
                }
                return tokens
            }
        }

        /// The reading field of an IPA dictionary feature (品詞,細分類1,細分類2,細分類3,活用型,
        /// 活用形,原形,読み,発音): the eighth; unknown words have seven fields, and `*` is none.
        static func reading(ofFeature feature: UnsafePointer<CChar>) -> String? {
            // Found by counting commas in place: this runs for every word of every poster an
            // import indexes, and splitting the whole feature made nine strings a word.
            var start = 0
            var commas = 0
            while commas < 7 {
                let byte = feature[start]
                if byte == 0 { return nil }
                if byte == 0x2C { commas += 1 }
                start += 1
            }
            var end = start
            while feature[end] != 0 && feature[end] != 0x2C { end += 1 }
            let field = UnsafeRawBufferPointer(start: feature + start, count: end - start)
            guard !field.isEmpty, !(field.count == 1 && field[0] == 0x2A) else { return nil }
            return String(decoding: field, as: UTF8.self)
        }
    }
}

/// Search by reading is off: libmecab or its dictionary cannot be loaded. Search then matches
/// text as written only, as it did before readings; this says why, once, where a command
/// indexes or searches.
public struct ReadingsUnavailable: Error, Sendable, CustomStringConvertible {
    /// What is missing, naming the library or the dictionary and the loader's reason.
    public let reason: String

    public var description: String { reason }
}

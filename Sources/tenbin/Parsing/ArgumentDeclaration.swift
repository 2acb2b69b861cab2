import TenbinKit

/// One positional argument a command declares, as a stored property of its ``OptionGroup``
/// beside its options: how help names and describes it, and how its text becomes a typed
/// value. Arguments are taken in declaration order; the last may take all that remain.
protocol ArgumentDeclaration: Sendable {
    /// Its name and help.
    var info: CommandSpec.Argument { get }
}

/// A positional argument whose value is of type `Value`.
struct Argument<Value: Sendable>: ArgumentDeclaration {
    let info: CommandSpec.Argument
    /// The value from the texts it takes (one, or for a trailing list all that remain); throws
    /// what was expected instead.
    let convert: @Sendable (_ texts: [String]) throws(UsageError) -> Value

    init(info: CommandSpec.Argument, convert: @escaping @Sendable (_ texts: [String]) throws(UsageError) -> Value) {
        self.info = info
        self.convert = convert
        DeclarationLog.note(info)
    }
}

extension Argument where Value == Int64 {
    /// A poster id, a whole number from 1.
    static func posterID(help: String = "The poster's id.") -> Self {
        Argument(info: CommandSpec.Argument(name: "ID", help: help)) { texts throws(UsageError) in
            guard let id = Int64(texts[0]), id >= 1 else { throw UsageError("'\(texts[0])' is not a poster id (a whole number from 1)") }
            return id
        }
    }
}

extension Argument where Value == VoteSide {
    /// A side, 1 or 2; `what` names it in the error ("the side must be 1 or 2, not '3'").
    static func side(help: String, what: String) -> Self {
        Argument(info: CommandSpec.Argument(name: "1|2", help: help)) { texts throws(UsageError) in
            guard let side = Int(texts[0]).flatMap(VoteSide.init(rawValue:)) else {
                throw UsageError("\(what) must be 1 or 2, not '\(texts[0])'")
            }
            return side
        }
    }
}

extension Argument where Value == String {
    /// Any text; `more` are further help rows for other forms it takes (a folder or a file).
    static func text(_ name: String, help: String, more: [(name: String, help: String)] = []) -> Self {
        Argument(info: CommandSpec.Argument(name: name, help: help, more: more)) { texts in texts[0] }
    }
}

extension Argument where Value == [String] {
    /// Every argument that remains, none included (the command says whether none will do).
    static func list(_ name: String, help: String) -> Self {
        Argument(info: CommandSpec.Argument(name: name, help: help, isList: true)) { texts in texts }
    }
}

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

extension OptionGroup {
    /// Every positional argument declared in this group and the groups inside it, in
    /// declaration order.
    static var argumentDeclarations: [CommandSpec.Argument] {
        var arguments: [CommandSpec.Argument] = []
        func collect(_ group: Any) {
            for child in Mirror(reflecting: group).children {
                if let argument = child.value as? any ArgumentDeclaration {
                    arguments.append(argument.info)
                } else if let inner = child.value as? any OptionGroup {
                    collect(inner)
                }
            }
        }
        collect(Self())
        // Broken invariant of a declaration: only the last argument may take a list.
        precondition(arguments.dropLast().allSatisfy { !$0.isList }, "\(Self.self): only the last argument may be a list")
        return arguments
    }
}

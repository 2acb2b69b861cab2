import Glibc
import TenbinPostgres

/// One option a command declares, as a stored property of its ``OptionGroup``: how it is
/// spelled and described, and (for an ``Option``) how its text becomes a typed value.
protocol OptionDeclaration: Sendable {
    /// Its spellings and help.
    var info: CommandSpec.Option { get }
}

/// A set of options (and a command's positional arguments, ``Argument``) declared together as
/// stored properties: a command's own, or a group several commands share (image limits,
/// drawing, paging). A property that is itself a group contributes its options in place.
/// Declaration order is the order help lists them in.
protocol OptionGroup: Sendable {
    /// The declarations, with their defaults.
    init()
}

extension OptionGroup {
    /// Every option declared in this group and the groups inside it, in declaration order.
    static var declarations: [CommandSpec.Option] { declared().options }

    /// Every positional argument declared in this group and the groups inside it, in
    /// declaration order.
    static var argumentDeclarations: [CommandSpec.Argument] { declared().arguments }

    /// A group with its defaults, and the options and arguments declared in it and in the
    /// groups inside, in declaration order: each declaration notes itself as it is made
    /// (``DeclarationLog``), and the group's stored properties are made in the order they
    /// are declared.
    ///
    /// Reflecting the group instead (`Mirror`, then a protocol cast per property) cost every
    /// command 0.3–0.4 ms before it did anything: the casts scan the binary's protocol
    /// conformances once per type (docs/benchmarks.md). Debug builds, which the tests run,
    /// still reflect the group and stop if the two disagree, so a stored property that is no
    /// declaration, or a declaration made and not stored, is found by any test that runs the
    /// command.
    static func declared() -> (group: Self, options: [CommandSpec.Option], arguments: [CommandSpec.Argument]) {
        var group: Self?
        let log = DeclarationLog.recording { group = Self() }
        let options = log.options
        let arguments = log.arguments
        #if DEBUG
            let reflected = reflectedDeclarations(of: group!)
            precondition(
                reflected.options.map(\.names) == options.map(\.names) && reflected.arguments.map(\.name) == arguments.map(\.name),
                "\(Self.self): the declarations noted are not its stored properties")
        #endif
        // Broken invariants of a declaration: only the last argument may take a list, and each
        // has its own name (a command's arguments are found by it).
        precondition(arguments.dropLast().allSatisfy { !$0.isList }, "\(Self.self): only the last argument may be a list")
        precondition(Set(arguments.map(\.name)).count == arguments.count, "\(Self.self): two arguments share a name")
        return (group!, options, arguments)
    }

    #if DEBUG
        /// The declarations found by reflecting `group`: what ``declared()`` must agree with.
        private static func reflectedDeclarations(of group: Self) -> (options: [CommandSpec.Option], arguments: [CommandSpec.Argument]) {
            var options: [CommandSpec.Option] = []
            var arguments: [CommandSpec.Argument] = []
            func collect(_ group: Any) {
                for child in Mirror(reflecting: group).children {
                    if let option = child.value as? any OptionDeclaration {
                        options.append(option.info)
                    } else if let argument = child.value as? any ArgumentDeclaration {
                        arguments.append(argument.info)
                    } else if let inner = child.value as? any OptionGroup {
                        collect(inner)
                    } else {
                        // An OptionGroup holds only declarations and groups: anything else would
                        // silently be no option at all.
                        preconditionFailure("\(Self.self).\(child.label ?? "?") is neither an option, an argument nor a group of them")
                    }
                }
            }
            collect(group)
            return (options, arguments)
        }
    #endif
}

/// Where declarations note themselves while ``OptionGroup/declared()`` makes a group: one log
/// per thread, and none (nothing noted) outside `recording`.
final class DeclarationLog {
    private(set) var options: [CommandSpec.Option] = []
    private(set) var arguments: [CommandSpec.Argument] = []

    /// The thread's log while it records; created once, never deleted.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // Fails only when the process has used up its keys (1,024): nothing could be parsed.
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Runs `make` with a fresh log as the thread's, and returns what was noted meanwhile.
    static func recording(_ make: () -> Void) -> DeclarationLog {
        let log = DeclarationLog()
        let outer = pthread_getspecific(key)
        _ = pthread_setspecific(key, Unmanaged.passUnretained(log).toOpaque())  // a created key: cannot fail
        defer { _ = pthread_setspecific(key, outer) }
        withExtendedLifetime(log) { make() }
        return log
    }

    static func note(_ option: CommandSpec.Option) {
        current?.options.append(option)
    }

    static func note(_ argument: CommandSpec.Argument) {
        current?.arguments.append(argument)
    }

    private static var current: DeclarationLog? {
        pthread_getspecific(key).map { Unmanaged<DeclarationLog>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// A command without options of its own.
struct NoOptions: OptionGroup {}

/// An option without a value: true when given.
struct Flag: OptionDeclaration {
    let info: CommandSpec.Option

    init(_ names: [String], help: String) {
        info = CommandSpec.Option(names: names, value: nil, help: help)
        DeclarationLog.note(info)
    }

    /// `--json`, spelled once for every command that prints JSON; `help` says what it prints.
    static func json(_ help: String) -> Flag {
        Flag(["--json"], help: help)
    }
}

/// An option with a value of type `Value`; its default when it is absent.
struct Option<Value: Sendable>: OptionDeclaration {
    let info: CommandSpec.Option
    /// The value from the texts given, in order (empty when the option is absent); throws
    /// what was expected instead.
    let convert: @Sendable (_ texts: [String]) throws(UsageError) -> Value

    init(info: CommandSpec.Option, convert: @escaping @Sendable (_ texts: [String]) throws(UsageError) -> Value) {
        self.info = info
        self.convert = convert
        DeclarationLog.note(info)
    }
}

extension CommandSpec.Option {
    /// `help` followed by the default it names, so help shows the declaration's own default
    /// (`Add N votes at once (default: 1).`) and no text repeats it.
    static func help(_ help: String, default shown: String) -> String {
        "\(help.hasSuffix(".") ? String(help.dropLast()) : help) (default: \(shown))."
    }
}

extension Option where Value == Int {
    /// A whole number within `range`, `fallback` when absent; help shows `fallback`, or `shown`
    /// when the default is worked out (from the cores, from memory) and its rule says more.
    static func integer(
        _ names: [String], value: String, help: String, in range: ClosedRange<Int>, default fallback: Int, shown: String? = nil
    ) -> Self {
        let info = CommandSpec.Option(names: names, value: value, help: CommandSpec.Option.help(help, default: shown ?? "\(fallback)"))
        return Option(info: info) { texts throws(UsageError) in
            guard let text = texts.last else { return fallback }
            guard let number = Int(text), range.contains(number) else {
                throw UsageError("'\(info.primary)' takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
    }
}

extension Option where Value == String? {
    /// Any text, nil when absent.
    static func text(_ names: [String], value: String, help: String) -> Self {
        Option(info: CommandSpec.Option(names: names, value: value, help: help)) { texts in texts.last }
    }
}

extension Option where Value == String {
    /// Any text, `fallback` when absent.
    static func text(_ names: [String], value: String, help: String, default fallback: String) -> Self {
        Option(info: CommandSpec.Option(names: names, value: value, help: CommandSpec.Option.help(help, default: fallback))) { texts in
            texts.last ?? fallback
        }
    }
}

extension Option where Value == [String] {
    /// Any text, given any number of times, in order.
    static func repeated(_ names: [String], value: String, help: String) -> Self {
        Option(info: CommandSpec.Option(names: names, value: value, help: help, repeatable: true)) { texts in texts }
    }
}

extension Option where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of a fixed set of words (`--sort new|popular`), `fallback` when absent; `shown` adds
    /// to the default's word in help.
    static func choice(_ names: [String], value: String, help: String, default fallback: Value, shown: String? = nil) -> Self {
        let info = CommandSpec.Option(names: names, value: value, help: CommandSpec.Option.help(help, default: shown ?? fallback.rawValue))
        return Option(info: info) { texts throws(UsageError) in
            guard let text = texts.last else { return fallback }
            guard let choice = Value(rawValue: text) else {
                let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError("'\(info.primary)' takes one of \(names), not '\(text)'")
            }
            return choice
        }
    }
}

/// The options every subcommand takes, after its own.
struct CommonOptions: OptionGroup {
    var store = Option.text(["--store"], value: "DIR", help: "The store folder (default: $TENBIN_STORE, else \(Context.defaultStore)).")
    var database = Option.text(
        ["--database"], value: "URL",
        help:
            "A PostgreSQL database (any libpq connection string or URI; default: $TENBIN_DATABASE_URL); --store then names only the blob folder."
    )
    var databasePool = Option.integer(
        ["--database-pool"], value: "N", help: "At most N connections to the PostgreSQL database.", in: 1...1000,
        default: ConnectionPool.defaultSize)
    var help = Flag(["-h", "--help"], help: "Show help information.")
}

import TenbinKit

/// A subcommand's arguments after parsing: positionals, and the options its ``OptionGroup``
/// declares, read as typed values through the group's key paths.
///
/// `arguments.json` is the `json` flag of the command's options and `try arguments.times` its
/// `--times` value (or default); a name the command does not declare does not compile. An
/// option's value is checked when it is read, so a command reports its mistakes in the order
/// it reads them.
@dynamicMemberLookup
struct ParsedArguments<Options: OptionGroup>: Sendable {
    let spec: CommandSpec
    private(set) var positionals: [String] = []
    private let declarations: Options
    /// The texts given for each option, by its primary spelling.
    private let values: [String: [String]]

    /// Parses `arguments` against the command's options and ``CommonOptions``.
    /// `--name=value`, `--name value`, `-o value` and `--` (everything after it is positional)
    /// are understood.
    init(_ arguments: [String], spec: CommandSpec) throws {
        let options = Options.declarations + CommonOptions.declarations
        var byName: [String: CommandSpec.Option] = [:]
        for option in options {
            for name in option.names {
                // Broken invariant: a command declared one spelling twice.
                precondition(byName.updateValue(option, forKey: name) == nil, "'\(name)' is declared twice for tenbin \(spec.name)")
            }
        }
        var positionals: [String] = []
        var values: [String: [String]] = [:]
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" || Self.isNumber(argument) {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = byName[name] else {
                let suggestion = Suggestion.closest(to: name, among: options.flatMap(\.names)).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError("unknown option '\(name)'\(suggestion)", command: spec)
            }
            let value: String
            if let valueName = option.value {
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("missing value for '\(name) \(valueName)'", command: spec) }
                    value = arguments[index]
                    index += 1
                }
                if !option.repeatable && values[option.primary] != nil {
                    throw UsageError("'\(option.primary)' was given more than once", command: spec)
                }
            } else {
                if inlineValue != nil { throw UsageError("'\(name)' takes no value", command: spec) }
                value = ""
            }
            values[option.primary, default: []].append(value)
        }
        self.init(spec: spec, positionals: positionals, declarations: Options(), values: values)
    }

    private init(spec: CommandSpec, positionals: [String], declarations: Options, values: [String: [String]]) {
        self.spec = spec
        self.positionals = positionals
        self.declarations = declarations
        self.values = values
    }

    /// A negative number ("-3") is a positional, not an option.
    private static func isNumber(_ text: String) -> Bool {
        text.count > 1 && text.dropFirst().allSatisfy(\.isASCII) && Int(text) != nil
    }

    /// Whether a flag was given.
    subscript(dynamicMember flag: KeyPath<Options, Flag>) -> Bool {
        values[declarations[keyPath: flag].info.primary] != nil
    }

    /// An option's value, or its default when it was not given; throws a usage error when the
    /// text given is not a value it takes.
    subscript<Value>(dynamicMember option: KeyPath<Options, Option<Value>>) -> Value {
        get throws {
            let declaration = declarations[keyPath: option]
            do {
                return try declaration.convert(values[declaration.info.primary] ?? [])
            } catch {
                throw UsageError(error.message, command: spec)
            }
        }
    }

    /// The options of a group inside this one.
    subscript<Group: OptionGroup>(dynamicMember group: KeyPath<Options, Group>) -> ParsedArguments<Group> {
        ParsedArguments<Group>(spec: spec, positionals: positionals, declarations: declarations[keyPath: group], values: values)
    }

    /// The options every command takes.
    var common: ParsedArguments<CommonOptions> {
        ParsedArguments<CommonOptions>(spec: spec, positionals: positionals, declarations: CommonOptions(), values: values)
    }

    /// Whether an option with a value was given at all.
    func isGiven<Value>(_ option: KeyPath<Options, Option<Value>>) -> Bool {
        values[declarations[keyPath: option].info.primary] != nil
    }

    /// Requires between `range` positional arguments, naming what is missing or extra.
    func expectPositionals(_ range: ClosedRange<Int>) throws {
        if positionals.count < range.lowerBound {
            let missing = spec.arguments.dropFirst(positionals.count).first?.name ?? "argument"
            throw UsageError("missing \(missing)", command: spec)
        }
        if positionals.count > range.upperBound {
            throw UsageError("unexpected argument '\(positionals[range.upperBound])'", command: spec)
        }
    }

    /// The poster id in positional `index`.
    func posterID(at index: Int) throws -> Int64 {
        let text = positionals[index]
        guard let id = Int64(text), id >= 1 else {
            throw UsageError("'\(text)' is not a poster id (a whole number from 1)", command: spec)
        }
        return id
    }

    /// The side (1 or 2) in positional `index`; `what` names it in the error.
    func side(at index: Int, what: String) throws -> VoteSide {
        guard let side = Int(positionals[index]).flatMap(VoteSide.init(rawValue:)) else {
            throw UsageError("\(what) must be 1 or 2, not '\(positionals[index])'", command: spec)
        }
        return side
    }
}

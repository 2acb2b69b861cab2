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
    /// The positional arguments as given (a command reads them typed, through its ``Argument``s).
    private(set) var positionals: [String] = []
    private let declarations: Options
    /// The positional arguments `Options` declares, in order.
    private let arguments: [CommandSpec.Argument]
    /// The texts given for each option, by its primary spelling.
    private let values: [String: [String]]

    /// Parses `arguments` against the command's options and ``CommonOptions``.
    /// `--name=value`, `--name value`, `-o value` and `--` (everything after it is positional)
    /// are understood.
    init(_ arguments: [String], spec: CommandSpec) throws {
        let own = Options.declared()
        let options = own.options + CommonOptions.declarations
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
        self.init(spec: spec, positionals: positionals, declarations: own.group, arguments: own.arguments, values: values)
    }

    private init(
        spec: CommandSpec, positionals: [String], declarations: Options, arguments: [CommandSpec.Argument], values: [String: [String]]
    ) {
        self.spec = spec
        self.positionals = positionals
        self.declarations = declarations
        self.arguments = arguments
        self.values = values
    }

    /// A negative number ("-3") is a positional, not an option.
    private static func isNumber(_ text: String) -> Bool {
        text.count > 1 && text.dropFirst().allSatisfy(\.isASCII) && Int(text) != nil
    }

    // The key-path subscripts below are always inlined, so the literal at each call site
    // (`\.json`) meets `declarations[keyPath:]` and the optimizer turns the pair into a plain
    // property read. Not inlined, each call site made a KeyPath object at its first use
    // (`swift_getKeyPath`, about 5 % of a vote's process; docs/benchmarks.md).

    /// Whether a flag was given.
    @inline(__always)
    subscript(dynamicMember flag: KeyPath<Options, Flag>) -> Bool {
        values[declarations[keyPath: flag].info.primary] != nil
    }

    /// An option's value, or its default when it was not given; throws a usage error when the
    /// text given is not a value it takes.
    @inline(__always)
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
    @inline(__always)
    subscript<Group: OptionGroup>(dynamicMember group: KeyPath<Options, Group>) -> ParsedArguments<Group> {
        ParsedArguments<Group>(
            spec: spec, positionals: positionals, declarations: declarations[keyPath: group], arguments: Group.argumentDeclarations,
            values: values)
    }

    /// The options every command takes.
    var common: ParsedArguments<CommonOptions> {
        let common = CommonOptions.declared()
        return ParsedArguments<CommonOptions>(
            spec: spec, positionals: positionals, declarations: common.group, arguments: common.arguments, values: values)
    }

    /// Whether an option with a value was given at all.
    @inline(__always)
    func isGiven<Value>(_ option: KeyPath<Options, Option<Value>>) -> Bool {
        values[declarations[keyPath: option].info.primary] != nil
    }

    /// A positional argument's value (see ``Argument``); throws a usage error when it is
    /// missing or not a value it takes.
    @inline(__always)
    subscript<Value>(dynamicMember argument: KeyPath<Options, Argument<Value>>) -> Value {
        get throws {
            let declaration = declarations[keyPath: argument]
            let declared = arguments
            // Declared in this group, under a name no other argument has (checked where they
            // are collected): it is among the group's arguments.
            let index = declared.firstIndex { $0.name == declaration.info.name }!
            let texts = declaration.info.isList ? Array(positionals.dropFirst(index)) : Array(positionals.dropFirst(index).prefix(1))
            guard declaration.info.isList || !texts.isEmpty else { throw UsageError("missing \(declaration.info.name)", command: spec) }
            do {
                return try declaration.convert(texts)
            } catch {
                throw UsageError(error.message, command: spec)
            }
        }
    }

    /// Requires the positional arguments the command declares (see ``Argument``): each of
    /// them, and no more unless the last takes a list; names what is missing or extra.
    func expectPositionals() throws {
        let declared = arguments
        if positionals.count < declared.filter({ !$0.isList }).count {
            throw UsageError("missing \(declared[positionals.count].name)", command: spec)
        }
        if declared.last?.isList != true && positionals.count > declared.count {
            throw UsageError("unexpected argument '\(positionals[declared.count])'", command: spec)
        }
    }
}

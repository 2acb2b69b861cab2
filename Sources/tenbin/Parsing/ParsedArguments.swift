import TenbinKit

/// A subcommand's arguments after parsing: positionals, option values and flags.
struct ParsedArguments {
    let spec: CommandSpec
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]

    /// Parses `arguments` against `spec`. `--name=value`, `--name value`, `-o value` and `--`
    /// (everything after it is positional) are understood.
    init(_ arguments: [String], spec: CommandSpec) throws {
        self.spec = spec
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
            guard let option = spec.option(named: name) else {
                throw UsageError("unknown option '\(name)'", command: spec)
            }
            let value: String
            if option.value == nil {
                if inlineValue != nil { throw UsageError("'\(name)' takes no value", command: spec) }
                value = ""
            } else if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError("missing value for '\(name) \(option.value!)'", command: spec)  // value is non-nil in this branch
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable && option.value != nil && values[option.primary] != nil {
                throw UsageError("'\(option.primary)' was given more than once", command: spec)
            }
            values[option.primary, default: []].append(value)
        }
    }

    /// A negative number ("-3") is a positional, not an option.
    private static func isNumber(_ text: String) -> Bool {
        text.count > 1 && text.dropFirst().allSatisfy(\.isASCII) && Int(text) != nil
    }

    func flag(_ name: String) -> Bool { values[name] != nil }

    func value(_ name: String) -> String? { values[name]?.last }

    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// An integer option within `range`, or `fallback` when it is absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        guard let text = value(name) else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("'\(name)' takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", command: spec)
        }
        return number
    }

    /// A value from a fixed set (for `--sort new|popular`).
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default fallback: T) throws -> T where T.RawValue == String {
        guard let text = value(name) else { return fallback }
        guard let choice = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("'\(name)' takes one of \(names), not '\(text)'", command: spec)
        }
        return choice
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

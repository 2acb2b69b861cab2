import TenbinKit

/// The options of every command that can draw posters' images: whether to draw them, and
/// how big the image cache may grow.
struct DrawingOptions {
    /// Whether images are drawn.
    var draw: Bool
    /// The pipeline's cache limits.
    var cacheLimits: CacheLimits

    /// The options, declared once for every command that draws.
    struct Group: OptionGroup {
        var images = Flag(["--images"], help: "Draw both images of each poster (default: on a truecolor terminal).")
        var noImages = Flag(["--no-images"], help: "Never draw images.")
        var cacheMB = Option.integer(
            ["--cache-mb"], value: "MB", help: "Image cache size in MiB (default: 1/16 of memory, 16–256; 0 caches nothing).",
            in: 0...1 << 20, default: CacheLimits.default.bytes >> 20)
        var cacheCount = Option.integer(
            ["--cache-count"], value: "N", help: "Most images the cache holds (default \(CacheLimits.defaultCount)).", in: 0...10_000_000,
            default: CacheLimits.default.count)
    }

    /// Reads the options; without `--images` or `--no-images`, images are drawn when stdout is
    /// a terminal that says it shows 24-bit colour and colour is not turned off. `--json`
    /// never draws.
    static func parse(_ arguments: ParsedArguments<Group>, context: Context, json: Bool) throws -> DrawingOptions {
        let on = arguments.images
        let off = arguments.noImages
        if on && off { throw UsageError("'--images' and '--no-images' cannot be used together", command: arguments.spec) }
        if on && json { throw UsageError("'--images' cannot be used with '--json'", command: arguments.spec) }
        var limits = CacheLimits.default
        limits.bytes = try arguments.cacheMB << 20
        limits.count = try arguments.cacheCount
        let draw = on || (!off && !json && truecolor(environment: context.environment, terminal: context.stdoutIsTerminal))
        return DrawingOptions(draw: draw, cacheLimits: limits)
    }

    /// Whether output goes to a terminal showing 24-bit colour (`COLORTERM` truecolor or
    /// 24bit), with colour not turned off by a non-empty `NO_COLOR` or by `TERM=dumb`.
    static func truecolor(environment: [String: String], terminal: Bool) -> Bool {
        let colorterm = environment["COLORTERM"]?.lowercased()
        return terminal && (colorterm == "truecolor" || colorterm == "24bit") && Context.colorAllowed(by: environment)
    }
}

import TenbinKit

/// The options of every command that can draw posters' images: whether to draw them, and
/// how big the image cache may grow.
struct DrawingOptions {
    /// Whether images are drawn.
    var draw: Bool
    /// The pipeline's cache limits.
    var cacheLimits: CacheLimits
    /// How pictures are drawn, `auto` resolved (see ``TerminalPicture``).
    var mode: ImageMode = .halfblock
    /// A character cell's size in pixels, for libchafa's real images.
    var cell: (width: Int, height: Int) = (10, 20)

    /// The options, declared once for every command that draws.
    struct Group: OptionGroup {
        var images = Flag(
            ["--images"], help: "Draw both images of each poster (default: show draws on a truecolor terminal; lists do not).")
        var noImages = Flag(["--no-images"], help: "Never draw images.")
        var imageMode = Option.choice(
            ["--image-mode"], value: "auto|kitty|sixel|iterm|symbols|halfblock",
            help: "How to draw images; any but auto implies --images.", default: ImageMode.auto, shown: "auto; see 'Images on screen'")
        var cacheMB = Option.integer(
            ["--cache-mb"], value: "MB", help: "Image cache size in MiB; 0 caches nothing.", in: 0...1 << 20,
            default: CacheLimits.default.bytes >> 20, shown: "1/16 of memory, 16–256")
        var cacheCount = Option.integer(
            ["--cache-count"], value: "N", help: "Most images the cache holds.", in: 0...10_000_000,
            default: CacheLimits.default.count)
    }

    /// Whether a command draws images when neither `--images` nor `--no-images` is given.
    enum Default {
        /// `show`: on a terminal that says it shows 24-bit colour, with colour not turned off.
        case onATruecolorTerminal
        /// `list` and `search`: lists are for scanning, so compact rows unless asked.
        case never
    }

    /// Reads the options; without `--images` or `--no-images`, `byDefault` decides. `--json`
    /// never draws.
    static func parse(_ arguments: ParsedArguments<Group>, context: Context, json: Bool, byDefault: Default) throws -> DrawingOptions {
        let requested = try arguments.imageMode
        let off = arguments.noImages
        if requested != .auto && (off || json) {
            let other = off ? "--no-images" : "--json"
            throw UsageError("'--image-mode' cannot be used with '\(other)'", command: arguments.spec)
        }
        // Naming a way to draw asks for drawing.
        let on = arguments.images || requested != .auto
        if on && off { throw UsageError("'--images' and '--no-images' cannot be used together", command: arguments.spec) }
        if on && json { throw UsageError("'--images' cannot be used with '--json'", command: arguments.spec) }
        var limits = CacheLimits.default
        limits.bytes = try arguments.cacheMB << 20
        limits.count = try arguments.cacheCount
        let drawsByDefault =
            switch byDefault {
            case .onATruecolorTerminal: truecolor(environment: context.environment, terminal: context.stdoutIsTerminal)
            case .never: false
            }
        let draw = on || (!off && !json && drawsByDefault)
        // Only a command that draws loads libchafa (and GLib with it).
        guard draw else { return DrawingOptions(draw: false, cacheLimits: limits) }
        let mode = TerminalPicture.resolve(requested, environment: context.environment, terminal: context.stdoutIsTerminal)
        return DrawingOptions(
            draw: true, cacheLimits: limits, mode: mode, cell: TerminalPicture.cellSize(terminal: context.stdoutIsTerminal))
    }

    /// Whether output goes to a terminal showing 24-bit colour (`COLORTERM` truecolor or
    /// 24bit), with colour not turned off by a non-empty `NO_COLOR` or by `TERM=dumb`.
    static func truecolor(environment: [String: String], terminal: Bool) -> Bool {
        let colorterm = environment["COLORTERM"]?.lowercased()
        return terminal && (colorterm == "truecolor" || colorterm == "24bit") && Context.colorAllowed(by: environment)
    }
}

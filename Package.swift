// swift-tools-version:6.0
import PackageDescription

/// Every Swift target's: a generic type's metadata is reached through its accessor function, not
/// by demangling its name at run time. A short command makes most of its types for the first
/// time, and the demangler was a tenth of a vote's process (docs/benchmarks.md, "Types made
/// without the demangler").
let swiftSettings: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]

let package = Package(
    name: "tenbin",
    products: [
        .executable(name: "tenbin", targets: ["tenbin"]),
        .library(name: "TenbinKit", targets: ["TenbinKit"]),
        .library(name: "TenbinSQLite", targets: ["TenbinSQLite"]),
        .library(name: "TenbinServer", targets: ["TenbinServer"]),
    ],
    targets: [
        // C libraries, each behind its own module. Only the wrapper folder imports it.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        // The one dlopen loader the wrappers below share: a library loaded on first use, its
        // functions looked up once, one clear error (see CLibraryLoader.h).
        .target(name: "CLibraryLoader", path: "Sources/CLibraryLoader"),
        // libpq's headers, and its functions loaded with dlopen on first use (see libpq.c).
        .target(name: "CLibPQ", dependencies: ["CLibraryLoader"], path: "Sources/CLibPQ"),
        // MeCab's headers, and its functions loaded with dlopen on first use (see mecab.c): the
        // readings that let a kana query find text written in kanji.
        .target(name: "CMeCab", dependencies: ["CLibraryLoader"], path: "Sources/CMeCab"),
        // SHA-256 from libcrypto, loaded with dlopen on first use (see sha256.c).
        .target(name: "CCrypto", dependencies: ["CLibraryLoader"], path: "Sources/CCrypto"),
        // libjpeg and libpng report errors with setjmp/longjmp, which must never cross a
        // Swift frame, so every call into them lives in this C target; libwebp and libheif sit
        // beside them behind the same rows. All four are loaded with dlopen on first use
        // (libraries.c, heif.c): a command that decodes no image never maps them.
        .target(
            name: "CImageCodec",
            dependencies: ["CLibraryLoader"],
            path: "Sources/CImageCodec",
            cSettings: [.unsafeFlags(["-O2"])]
        ),
        // Terminal pictures (kitty, sixel, iTerm2, symbol mosaics) through libchafa, loaded with
        // dlopen on first use (see chafa.c); only the command line's TerminalPicture uses it.
        .target(name: "CChafa", dependencies: ["CLibraryLoader"], path: "Sources/CChafa"),
        // Preview cards (`/p/ID/card.jpg`) drawn with cairo and pango, loaded with dlopen on first
        // use (see card.c); only the server's PreviewCard uses it.
        .target(name: "CPreviewCard", dependencies: ["CLibraryLoader"], path: "Sources/CPreviewCard"),
        // libmicrohttpd for `tenbin serve`, loaded with dlopen when a server starts (see
        // library.c); a C target because MHD_start_daemon and the info getters are variadic,
        // which Swift cannot call (see CMicroHTTPD.h).
        .target(name: "CMicroHTTPD", dependencies: ["CLibraryLoader"], path: "Sources/CMicroHTTPD"),
        // gzip for `tenbin serve`'s text answers; a C target because deflateInit2 is a macro
        // (see gzip.c).
        .target(name: "CZlib", dependencies: ["CLibraryLoader"], path: "Sources/CZlib"),
        // The backend-neutral core: no SQL, no database library.
        .target(
            name: "TenbinKit",
            dependencies: ["CCrypto", "CImageCodec", "CMeCab"],
            path: "Sources/TenbinKit",
            swiftSettings: swiftSettings
        ),
        // The embedded backend: the only target that speaks SQLite.
        .target(
            name: "TenbinSQLite",
            dependencies: ["TenbinKit", "CSQLite"],
            path: "Sources/TenbinSQLite",
            swiftSettings: swiftSettings
        ),
        // The PostgreSQL backend (libpq), for boards beyond one machine.
        .target(
            name: "TenbinPostgres",
            dependencies: ["TenbinKit", "CLibPQ"],
            path: "Sources/TenbinPostgres",
            swiftSettings: swiftSettings
        ),
        // `tenbin serve`: HTTP on libmicrohttpd over any backend's Board. The web page's script,
        // style sheet and icon are real files, compiled into the binary as byte arrays
        // (`PackageResources.app_js`, …): no bundle to find at run time, no Foundation.
        .target(
            name: "TenbinServer",
            dependencies: ["TenbinKit", "CMicroHTTPD", "CZlib", "CPreviewCard"],
            path: "Sources/TenbinServer",
            resources: [
                .embedInCode("Web/Static/app.js"),
                .embedInCode("Web/Static/app.css"),
                .embedInCode("Web/Static/icon.svg"),
                .embedInCode("Web/Static/manifest.webmanifest"),
                .embedInCode("Web/Static/report.js"),
                .embedInCode("Web/Static/report.css"),
                .embedInCode("Web/Static/proof-worker.js"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "tenbin",
            dependencies: ["TenbinKit", "TenbinSQLite", "TenbinPostgres", "TenbinServer", "CChafa"],
            path: "Sources/tenbin",
            swiftSettings: swiftSettings
        ),
        // `make bench`: measurements printed as tables, never timed tests.
        .executableTarget(
            name: "tenbin-bench",
            dependencies: ["TenbinKit", "TenbinSQLite", "TenbinPostgres", "TenbinServer"],
            path: "Sources/tenbin-bench",
            swiftSettings: swiftSettings
        ),
        // The core's tests, the SQLite backend's own, and the contract suite every backend
        // passes (Contract/), with an in-memory backend that proves the seam complete.
        // Whether the PostgreSQL tests run, for every test target (see its file).
        .target(name: "TestPostgresServer", path: "Tests/TestPostgresServer"),
        .target(name: "TestProcesses", path: "Tests/TestProcesses"),
        .testTarget(
            name: "TenbinKitTests",
            dependencies: ["TenbinKit", "TenbinSQLite", "TenbinPostgres", "TestPostgresServer", "TestProcesses"],
            path: "Tests/TenbinKitTests"
        ),
        .testTarget(
            name: "TenbinServerTests",
            dependencies: ["TenbinServer", "TenbinSQLite", "TestProcesses"],
            path: "Tests/TenbinServerTests"
        ),
        .testTarget(
            name: "TenbinEndToEndTests",
            dependencies: ["tenbin", "TestPostgresServer", "TestProcesses"],
            path: "Tests/TenbinEndToEndTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)

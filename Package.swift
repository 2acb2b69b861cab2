// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "tenbin",
    products: [
        .executable(name: "tenbin", targets: ["tenbin"]),
        .library(name: "TenbinKit", targets: ["TenbinKit"]),
    ],
    targets: [
        // C libraries, each behind its own module. Only the wrapper folder imports it.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ"),
        // SHA-256 from libcrypto, loaded with dlopen on first use (see sha256.c).
        .target(name: "CCrypto", path: "Sources/CCrypto"),
        // libjpeg and libpng report errors with setjmp/longjmp, which must never cross a
        // Swift frame, so every call into them lives in this C target.
        .target(
            name: "CImageCodec",
            path: "Sources/CImageCodec",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16")]
        ),
        .target(
            name: "TenbinKit",
            dependencies: ["CSQLite", "CCrypto", "CImageCodec"],
            path: "Sources/TenbinKit"
        ),
        // The PostgreSQL backend (libpq), for boards beyond one machine.
        .target(
            name: "TenbinPostgres",
            dependencies: ["TenbinKit", "CLibPQ"],
            path: "Sources/TenbinPostgres"
        ),
        .executableTarget(
            name: "tenbin",
            dependencies: ["TenbinKit"],
            path: "Sources/tenbin"
        ),
        // `make bench`: measurements printed as tables, never timed tests.
        .executableTarget(
            name: "tenbin-bench",
            dependencies: ["TenbinKit"],
            path: "Sources/tenbin-bench"
        ),
        .testTarget(
            name: "TenbinKitTests",
            dependencies: ["TenbinKit"],
            path: "Tests/TenbinKitTests"
        ),
        .testTarget(
            name: "TenbinPostgresTests",
            dependencies: ["TenbinPostgres"],
            path: "Tests/TenbinPostgresTests"
        ),
        .testTarget(
            name: "TenbinEndToEndTests",
            dependencies: ["tenbin"],
            path: "Tests/TenbinEndToEndTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
// kcs — the Keycard console. Targets follow the module table of docs/architecture.md:
// imports only go down (C → core → card → store → lang → app); PackageTests checks it.
import PackageDescription

let package = Package(
    name: "kcs",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "kcs", targets: ["kcs"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/attaswift/BigInt.git", from: "6.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // MARK: - Layer 0: C libraries from Debian, found through pkg-config
        .systemLibrary(
            name: "CSecp256k1", pkgConfig: "libsecp256k1",
            providers: [.apt(["libsecp256k1-dev"]), .brew(["secp256k1"])]),
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]),
        .systemLibrary(
            name: "CEditLine",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]),
        // pcsc-lite through dlopen: nothing is linked, so kcs starts without it (see shim.h).
        .systemLibrary(name: "CPCSC"),
        // libcurl through dlopen: nothing is linked, so kcs starts without it (see shim.h).
        .systemLibrary(name: "CCurl"),
        // OpenSSL's libcrypto through dlopen (AES-128-CCM for Keycard 4.0's secure channel).
        .systemLibrary(name: "COpenSSL"),
        // libqrencode, libzbar and libpng through dlopen (QR codes and their images; see shim.h).
        .systemLibrary(name: "CQR"),

        // MARK: - Layer 1: cryptographic and wallet core
        // The shape every error vocabulary shares: `IdentifiableError` and `ExitClass`.
        .target(name: "KCSErrors"),
        .target(
            name: "WalletCrypto",
            dependencies: [
                "KCSErrors", "CSecp256k1", "CSodium", "COpenSSL",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .target(name: "WalletCore", dependencies: ["KCSErrors", "WalletCrypto"]),
        // Two-party ECDSA (docs/two-party-protocol.md): proofs and state machines, no I/O.
        .target(name: "WalletMPC", dependencies: ["KCSErrors", "WalletCrypto", "WalletCore"]),

        // MARK: - Layer 2: the card (protocol client, simulator, PC/SC)
        .target(name: "CardProtocol", dependencies: ["KCSErrors", "WalletCore", "WalletCrypto"]),
        .target(name: "CardSimulator", dependencies: ["KCSErrors", "CardProtocol", "WalletCore", "WalletCrypto"]),
        .target(name: "CardPCSC", dependencies: ["CardProtocol", "CPCSC"]),

        // MARK: - Layer 3: the store (SQLite through GRDB.swift, which links Debian's libsqlite3)
        .target(
            name: "WalletStore",
            dependencies: [
                "KCSErrors", "WalletCore", "WalletCrypto", "CardProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),

        // MARK: - Layer 3½: the application layer (typed; no language module)
        .target(
            name: "WalletSession",
            dependencies: [
                "KCSErrors", "WalletCore", "WalletCrypto", "WalletStore", "EthRPC", "CardProtocol", "CardSimulator",
                "CardPCSC", "QRCodes", "WalletMPC", "MPCLink", "LocalRPC",
            ]),

        // MARK: - Layer 4: language
        .target(name: "KCSSyntax"),
        .target(
            name: "KCSRuntime", dependencies: ["KCSErrors", "KCSSyntax", .product(name: "BigInt", package: "BigInt")]),
        // Layer 3 beside the store: a JSON-RPC client for an Ethereum node (HTTP through libcurl).
        .target(name: "EthRPC", dependencies: ["KCSErrors", "WalletCore", "WalletCrypto", "CCurl"]),
        // Layer 3 beside the node: the two-party channel (libsodium) and its sockets.
        .target(name: "MPCLink", dependencies: ["KCSErrors", "WalletCrypto", "WalletMPC"]),
        .target(name: "LocalRPC", dependencies: ["MPCLink"]),
        // Layer 3: QR codes in the terminal and in PNG/SVG files, and read from images.
        .target(name: "QRCodes", dependencies: ["KCSErrors", "CQR"]),

        .target(
            name: "KCSBuiltins",
            dependencies: [
                "KCSErrors", "KCSRuntime", "KCSSyntax", "WalletSession", "WalletCore", "WalletCrypto", "WalletStore",
                "EthRPC",
                "CardProtocol", "CardSimulator", "CardPCSC", "QRCodes", "WalletMPC",
                .product(name: "BigInt", package: "BigInt"),
            ]),

        // MARK: - Layer 5: the console and the executable
        .target(
            name: "KCSConsole",
            dependencies: [
                "KCSErrors", "KCSBuiltins", "KCSRuntime", "KCSSyntax", "WalletSession", "WalletCore", "WalletCrypto",
                "CEditLine",
            ]),
        .executableTarget(
            name: "kcs",
            dependencies: [
                "KCSConsole", "KCSErrors", "WalletStore", "WalletSession",
                "WalletCrypto", "CardProtocol", "CardSimulator", "CardPCSC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // MARK: - Benchmarks (`make bench`; the C baseline is bench/c/bench.c)
        .executableTarget(
            name: "kcs-bench",
            dependencies: [
                "WalletCore", "WalletCrypto", "WalletStore", "EthRPC", "CardProtocol", "CardSimulator", "CardPCSC",
                "KCSRuntime", "KCSSyntax", "KCSBuiltins", "WalletSession", "QRCodes", "WalletMPC", "MPCLink",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "bench/KCSBench"),

        // MARK: - Test support and tests
        .target(name: "KCSTestSupport", dependencies: ["WalletCrypto", "CardProtocol", "CardSimulator"]),
        .testTarget(name: "QRCodesTests", dependencies: ["QRCodes", "KCSTestSupport"]),
        .testTarget(name: "WalletCryptoTests", dependencies: ["WalletCrypto", "KCSTestSupport"], exclude: ["Vectors"]),
        .testTarget(
            name: "WalletCoreTests", dependencies: ["WalletCore", "WalletCrypto", "KCSTestSupport"],
            exclude: ["Vectors"]),
        .testTarget(
            name: "WalletMPCTests",
            dependencies: ["WalletMPC", "MPCLink", "WalletCore", "WalletCrypto", "KCSTestSupport"]),
        .testTarget(
            name: "CardProtocolTests", dependencies: ["CardProtocol", "WalletCore", "KCSTestSupport"],
            exclude: ["Vectors"]),
        .testTarget(
            name: "CardSimulatorTests",
            dependencies: ["CardSimulator", "CardProtocol", "WalletCore", "KCSTestSupport"]),
        .testTarget(
            name: "CardPCSCTests",
            dependencies: ["CardPCSC", "CardSimulator", "CardProtocol", "KCSTestSupport"]),
        .testTarget(
            name: "WalletStoreTests",
            dependencies: [
                "WalletStore", "KCSErrors", "WalletCore", "WalletCrypto", "KCSTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "KCSSyntaxTests", dependencies: ["KCSSyntax"]),
        .testTarget(
            name: "WalletSessionTests",
            dependencies: [
                "WalletSession", "WalletStore", "WalletCore", "WalletCrypto", "CardProtocol", "CardSimulator",
                "KCSErrors", "KCSTestSupport",
            ]),
        .testTarget(
            name: "KCSBuiltinsTests",
            dependencies: [
                "KCSBuiltins", "KCSErrors", "KCSRuntime", "KCSSyntax", "WalletSession", "WalletCore",
                .product(name: "BigInt", package: "BigInt"),
            ]),
        .testTarget(
            name: "KCSRuntimeTests",
            dependencies: ["KCSErrors", "KCSRuntime", .product(name: "BigInt", package: "BigInt")],
            exclude: ["Cases"]),
        .testTarget(
            name: "ConsoleTests",
            dependencies: [
                "KCSConsole", "KCSBuiltins", "KCSErrors", "WalletSession", "WalletCore", "WalletCrypto", "CardProtocol",
                "EthRPC", "KCSTestSupport",
            ]),
        .testTarget(
            name: "TranscriptTests", dependencies: ["KCSTestSupport"],
            exclude: ["Examples", "Stdlib", "Scripts", "Traces"]),
        .testTarget(name: "PackageTests", dependencies: ["CEditLine", "CPCSC", "KCSTestSupport"]),
    ]
)

// The kcs executable: parses argv and, until the console lands, reports what this
// build of the wallet core can do. Exit codes follow STYLE habit 10 (0 ok, 64 usage).
import ArgumentParser
import WalletCore
import WalletCrypto

struct KCS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kcs",
        abstract: "kcs, the Keycard console: a prompt and a scripting language over a wallet core.",
        discussion: """
            This build contains the wallet core (BIP-39, BIP-32/44, secp256k1, addresses, keystore V3) and the
            Keycard layer (protocol client, simulator, PC/SC). The interactive console and .kcs scripts come later.
            Run without arguments to see what this build can do.
            """,
        version: "kcs \(WalletCoreInfo.version)",
        subcommands: [Sim.self])

    func run() throws {
        print(KCS.capabilities)
    }

    static var capabilities: String {
        """
        kcs \(WalletCoreInfo.version) — the Keycard console

        This build provides the wallet core and the Keycard layer; the console prompt and .kcs scripts are not in it yet.
        What it can do:
          secp256k1      keys, ECDSA (RFC 6979, low-S, recoverable), verify, recover, ECDH, BIP-341 tweak (libsecp256k1)
          hashes         SHA-256/512, HMAC, PBKDF2, scrypt, Keccak-256, RIPEMD-160, HASH160, AES-CBC/CTR/GCM
          BIP-39         \(Mnemonic.WordCount.allCases.map { String($0.rawValue) }.joined(separator: "/")) words, \(Wordlist.Language.allCases.count) word lists, dice or hex entropy, seeds
          BIP-32/44      xprv/xpub, tprv/tpub, SLIP-132 y/z/u/v versions; presets \(PathPreset.all.map(\.name).joined(separator: ", "))
          SLIP-44        \(SLIP44.coins.count) registered coin types
          addresses      Ethereum (EIP-55); Bitcoin P2PKH, P2SH-P2WPKH, P2WPKH, P2TR; Litecoin, Dogecoin
          encodings      hex, Base58Check, WIF, bech32/bech32m, RLP
          keystore V3    scrypt and pbkdf2, aes-128-ctr, written atomically with mode 0600
          Keycard        protocol client (Secure Channel V1, every 3.x command), applet 3.1 simulator, PC/SC
          kcs sim attach a simulated card in the virtual reader "Virtual PCD 00 00" (pcscd + vsmartcard-vpcd)
        """
    }
}

KCS.main()

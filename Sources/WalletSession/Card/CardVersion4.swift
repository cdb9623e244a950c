import CardProtocol
import Foundation
import WalletCore
import WalletCrypto

// What only a Keycard 4.0 does (docs/keycard-protocol.md §14): Schnorr signatures (BIP-340,
// with the Taproot tweak), BIP-85 entropy, LEE keys, ECDH and GET CHALLENGE, each behind
// `requireVersion4`, the one check that the logged-in card is a 4.0 card.

/// The tweak of a 4.0 card's Schnorr signature (docs/keycard-protocol.md §14.6).
public enum SchnorrTweak: Equatable {
    /// None: a plain BIP-340 signature by the key.
    case none
    /// BIP-341's TapTweak of the key without a script tree (a BIP-86 key-path spend).
    case taproot
    /// 32 bytes given.
    case bytes([UInt8])
}

/// A Schnorr signature from a 4.0 card, checked under the output key.
public struct SchnorrSigned {
    public let path: DerivationPath
    /// The card's key at `path` (before the tweak).
    public let publicKey: PublicKey
    /// The key the signature verifies under: x(P) + t·G.
    public let outputKey: XOnlyPublicKey
    public let tweak: [UInt8]
    /// x(R) ‖ s.
    public let signature: [UInt8]
}

extension Session {
    /// `sign --schnorr`: a BIP-340 signature of `digest` by the logged-in 4.0 card's key at `path`
    /// (the current path when nil), tweaked as asked; the card's answer must carry the key EXPORT
    /// KEY gives for the path and verify under the tweaked key before it is returned. Not recorded in the signing history, which holds
    /// Ethereum-style ECDSA signatures.
    public func signSchnorrOnCard(digest: [UInt8], tweak: SchnorrTweak, path: DerivationPath?) throws -> SchnorrSigned {
        let card = try requireVersion4("a Schnorr signature")
        let path = try path ?? card.commands.getKeyPath()
        // The key at the path, for the Taproot tweak and to check the card signed with it.
        let key = try card.commands.exportKeyV2(path: path, kind: .publicKey).publicKey
        let t: [UInt8]
        switch tweak {
        case .none: t = [UInt8](repeating: 0, count: 32)
        case .bytes(let given): t = given
        case .taproot: t = Hash.tagged("TapTweak", key.xOnly.key.bytes)
        }
        let signed: CardSchnorrSignature
        do {
            signed = try card.commands.signSchnorrV2(digest: digest, tweak: t, path: path, expectedKey: key)
        } catch {
            if case .wrongData = error, path.components.count <= CardKeyPath.maximumDepth {
                throw CardKeyError.schnorrWithoutTweak(depth: path.components.count)
            }
            throw error
        }
        return SchnorrSigned(
            path: path, publicKey: signed.publicKey, outputKey: signed.outputKey, tweak: t,
            signature: signed.signature)
    }
}

/// A BIP-85 application (docs/keycard-protocol.md §14.8): the path under m/83696968' and how many
/// bytes of entropy the card returns for it.
public enum BIP85Application: Equatable {
    /// BIP-39 words (12, 15, 18, 21 or 24), English.
    case mnemonic(words: Int, index: UInt32)
    /// A compressed WIF private key (HD-seed WIF).
    case wif(index: UInt32)
    /// An extended private key: chain code = bytes 0..<32, key = bytes 32..<64.
    case xprv(index: UInt32)
    /// `bytes` (16…64) of hex.
    case hex(bytes: Int, index: UInt32)

    /// The BIP-85 path and entropy length.
    public var request: (path: DerivationPath, length: Int) {
        let h = { (i: UInt32) in ChildIndex(i, hardened: true) }
        switch self {
        case .mnemonic(let words, let index):
            return (
                DerivationPath(absolute: true, [h(83_696_968), h(39), h(0), h(UInt32(words)), h(index)]), words * 4 / 3
            )
        case .wif(let index): return (DerivationPath(absolute: true, [h(83_696_968), h(2), h(index)]), 32)
        case .xprv(let index): return (DerivationPath(absolute: true, [h(83_696_968), h(32), h(index)]), 64)
        case .hex(let bytes, let index):
            return (DerivationPath(absolute: true, [h(83_696_968), h(128_169), h(UInt32(bytes)), h(index)]), bytes)
        }
    }
}

/// What `card.bip85` derived, post-processed on the host as BIP-85 says.
public enum BIP85Output {
    case mnemonic(Mnemonic)
    case wif(Secret)
    case xprv(ExtendedKey)
    case hex(Secret)
}

extension Session {
    /// The logged-in card (with `pinVerified` false: the open channel), which must be a 4.0 card for `feature`.
    public func requireVersion4(_ feature: String, pinVerified: Bool = true) throws -> CardLink {
        let card = try pinVerified ? requireLoggedIn() : requireChannel()
        guard card.isVersion4 else { throw CardKeyError.needsVersion4(feature: feature) }
        return card
    }

    /// `card.bip85`: the card derives the entropy (EXPORT BIP85), the host encodes it.
    public func cardBIP85(_ application: BIP85Application) throws -> BIP85Output {
        let card = try requireVersion4("BIP-85 entropy")
        let (path, length) = application.request
        let entropy = try Self.inThisBuild { () throws(CardError) in
            try card.commands.exportBIP85(path: path, length: length)
        }
        switch application {
        case .mnemonic: return .mnemonic(try Mnemonic(entropy: entropy))
        case .wif: return .wif(WIF(privateKey: try PrivateKey(entropy)).encoded())
        case .xprv:
            let (chain, key) = entropy.withUnsafeBytes { (Array($0[0..<32]), Array($0[32..<64])) }
            var keyBytes = key
            defer { Secret.wipe(&keyBytes) }
            return .xprv(try ExtendedKey(privateKey: try PrivateKey(bytes: keyBytes), chainCode: chain))
        case .hex: return .hex(entropy)
        }
    }

    /// `card.lee`: EXPORT LEE at `path` of a 4.0 card in LEE mode.
    public func cardLEE(path: DerivationPath) throws -> LEEKeys {
        let card = try requireVersion4("LEE mode")
        do {
            return try Self.inThisBuild { () throws(CardError) in try card.commands.exportLEE(path: path) }
        } catch CardError.conditionsNotSatisfied(.exportLEE) {
            throw CardKeyError.notLEEMode
        }
    }

    /// `card.ecdh`: x(k·peer) with the 4.0 card's key at `path` (NIP-44 or EIP-1581 subtrees).
    public func cardECDH(peer: PublicKey, path: DerivationPath) throws -> Secret {
        let card = try requireVersion4("ECDH")
        let nostr = [ChildIndex(44, hardened: true), ChildIndex(1237, hardened: true)]
        guard
            CardKeyPath.isEIP1581(path.components)
                || (path.components.count >= 5 && path.components.starts(with: nostr))
        else {
            throw CardKeyError.ecdhPath(path: path.description)
        }
        return try Self.inThisBuild { () throws(CardError) in try card.commands.ecdh(peer: peer, path: path) }
    }

    /// Runs a command newer 4.0 builds have; `6D 00` becomes `notInThisBuild` (docs/keycard-protocol.md §14).
    static func inThisBuild<R>(_ body: () throws(CardError) -> R) throws -> R {
        do {
            return try body()
        } catch .insNotSupported(let command) {
            throw CardKeyError.notInThisBuild(command: command.name)
        }
    }

    /// `card.challenge`: `length` random bytes from a 4.0 card.
    public func cardChallenge(length: Int) throws -> [UInt8] {
        let card = try requireVersion4("GET CHALLENGE", pinVerified: false)
        return try Self.inThisBuild { () throws(CardError) in try card.commands.getChallenge(length: length) }
    }
}

import CardProtocol
import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// Signing a PSBT (docs/bitcoin.md): the keys of the wallet asked — a software HD key, a key
// given as a value, a private key, the card — as a `BitcoinKeyRing` for the plan, and as a
// signer for its steps. Every signature is verified before it is written (ECDSA low-S under the
// key; Schnorr under the tweaked output key the input pays) and recorded in the history.

/// Which Bitcoin keys sign: the active key, a stored key, or a key given as a value.
public enum BitcoinKeyChoice {
    case active
    case stored(String)
    /// An HD key given as a value: a master signs for every path under it.
    case givenHD(ExtendedKey)
    /// A private key given as a value (a WIF, hex).
    case givenKey(PrivateKey)
}

/// The wallet that signs a PSBT, once chosen: its keys and how each makes a signature.
public struct BitcoinWallet {
    enum Source {
        case software(master: ExtendedKey, nodes: DerivedNodes)
        case lone(PrivateKey)
        case card(CardLink)
    }

    let source: Source
    /// The name the history records signatures under.
    public let keyName: String
    let keyRecord: KeyRecord?
    /// What signs, in words (`the Keycard 1a2b3c4d`, `the software key savings`).
    public let device: String
    public var keys: BitcoinKeyRing
}

/// A software master's keys, each parent derived once: the inputs of one account share every
/// level but the last, so a PSBT's keys cost one child derivation each instead of a whole path.
final class DerivedNodes {
    private let master: ExtendedKey
    private var parents: [DerivationPath: ExtendedKey] = [:]

    init(_ master: ExtendedKey) { self.master = master }

    func key(at path: DerivationPath) throws -> ExtendedKey {
        guard let last = path.components.last else { return master }
        let parentPath = DerivationPath(absolute: true, Array(path.components.dropLast()))
        if parents[parentPath] == nil {
            if parents.count >= BitcoinKeyRing.maximumKeys { parents.removeAll() }
            parents[parentPath] = try master.derive(parentPath)
        }
        return try parents[parentPath]!.derive(last)
    }
}

/// Why a PSBT was not signed.
public enum PSBTSigningError: WalletError, Equatable {
    /// The plan's refusals, each naming its input and check.
    case refused([String])
    case noKey(name: String, kind: String)
    case feeTooHigh(share: String, limit: String)
    /// A card's signature that does not verify (or a Schnorr answer under another key).
    case badSignature(input: Int, reason: String)
    /// A Taproot input and a card whose applet has no Schnorr SIGN (before 4.0).
    case taprootNeedsVersion4(input: Int)

    public var id: String {
        switch self {
        case .refused: "psbt.refused"
        case .noKey: "psbt.noKey"
        case .feeTooHigh: "psbt.feeTooHigh"
        case .badSignature: "psbt.badSignature"
        case .taprootNeedsVersion4: "psbt.taprootNeedsCard4"
        }
    }

    public var followsCommandName: Bool { true }

    public var description: String {
        switch self {
        case .refused(let reasons): "nothing was signed: " + reasons.joined(separator: "; ")
        case .noKey(let name, let kind):
            "the key \(name) (\(kind)) cannot sign Bitcoin: an HD key, a private key or the card can"
        case .feeTooHigh(let share, let limit):
            "the fee is \(share) of what is sent, above the \(limit) limit; nothing was signed (--yes signs it, --max-fee-share sets the limit)"
        case .badSignature(let input, let reason): "input \(input): \(reason); nothing was signed"
        case .taprootNeedsVersion4(let input):
            "input \(input) is a Taproot key-path spend, which needs a Schnorr signature; this card's applet (before 4.0) "
                + "signs only ECDSA (SIGN's algorithm byte is ignored by older applets); nothing was signed"
        }
    }
}

/// What `psbt.sign` did.
public struct PSBTSigned {
    public let psbt: PSBT
    public let plan: PSBTPlan
    /// The inputs signed, with the path that signed each.
    public let signed: [(input: Int, path: DerivationPath?)]
}

extension Session {
    /// The wallet `choice` names, for reading a PSBT's keys (and later signing).
    public func bitcoinWallet(_ choice: BitcoinKeyChoice) throws -> BitcoinWallet {
        switch choice {
        case .givenHD(let key):
            return Self.softwareWallet(key, name: "given HD key", record: nil, device: "the HD key given with --key")
        case .givenKey(let key):
            return BitcoinWallet(
                source: .lone(key), keyName: "given key", keyRecord: nil, device: "the key given with --key",
                keys: BitcoinKeyRing(fingerprint: nil, lone: key.publicKey) { _ in key.publicKey })
        case .stored(let name): return try bitcoinWallet(record: try store().key(named: name))
        case .active:
            guard let name = activeKey else { throw KeyCommandError.noActiveKey }
            return try bitcoinWallet(record: try store().key(named: name))
        }
    }

    func bitcoinWallet(record: KeyRecord) throws -> BitcoinWallet {
        let device = Self.signingDevice(record)
        if record.kind == .card {
            let card = try requireLoggedIn()
            try card.checkHolds(record)
            let master = try card.commands.exportKey(
                .derive(try CardKeyPath(source: .master, components: [])), kind: .publicKey)
            let ring = BitcoinKeyRing(fingerprint: ExtendedKey.fingerprint(of: master.publicKey.compressed)) { path in
                try card.commands.exportKey(
                    .derive(try CardKeyPath(source: .master, components: path.components)), kind: .publicKey
                ).publicKey
            }
            return BitcoinWallet(
                source: .card(card), keyName: record.name, keyRecord: record, device: device, keys: ring)
        }
        if case .twoParty = record.storage { throw PSBTSigningError.noKey(name: record.name, kind: "two-party") }
        let store = try unlockedStore()
        switch record.kind {
        case .hdMaster, .hdChild:
            guard let seed = try store.read({ tx in try Self.masterSeed(of: record, tx)?.seed }) else {
                throw PSBTSigningError.noKey(name: record.name, kind: record.kind.rawValue)
            }
            return Self.softwareWallet(
                try ExtendedKey.master(seed: seed), name: record.name, record: record, device: device)
        case .ecdsa:
            let key = try store.read { tx in try Self.signingKey(record, tx) }
            return BitcoinWallet(
                source: .lone(key), keyName: record.name, keyRecord: record, device: device,
                keys: BitcoinKeyRing(fingerprint: nil, lone: key.publicKey) { _ in key.publicKey })
        default:
            throw PSBTSigningError.noKey(name: record.name, kind: record.kind.rawValue)
        }
    }

    static func softwareWallet(_ master: ExtendedKey, name: String, record: KeyRecord?, device: String) -> BitcoinWallet
    {
        let nodes = DerivedNodes(master)
        return BitcoinWallet(
            source: .software(master: master, nodes: nodes), keyName: name, keyRecord: record, device: device,
            keys: BitcoinKeyRing(fingerprint: master.fingerprint) { path in try nodes.key(at: path).publicKey })
    }

    /// The plan of `psbt` for the keys `choice` names (none: no key is matched, every input is
    /// shown as not this wallet's), as `psbt.show` shows it.
    public func planPSBT(_ psbt: PSBT, keys choice: BitcoinKeyChoice?, policy: PSBTPolicy) throws -> PSBTPlan {
        var ring =
            try choice.map { try bitcoinWallet($0).keys }
            ?? BitcoinKeyRing(fingerprint: nil) { _ in throw PSBTSigningError.noKey(name: "none", kind: "no key") }
        return try psbt.plan(keys: &ring, policy: policy)
    }

    /// Signs every input the keys `choice` names can sign in `psbt`, after the plan's checks; at
    /// a terminal the review is shown and asked about first (`yes` skips the question). Nothing
    /// is written or recorded unless every signature made verifies.
    public func signPSBT(
        _ psbt: PSBT, keys choice: BitcoinKeyChoice, policy: PSBTPolicy, yes: Bool
    ) throws -> PSBTSigned {
        var wallet = try bitcoinWallet(choice)
        let plan = try psbt.plan(keys: &wallet.keys, policy: policy)
        guard plan.refusals.isEmpty else { throw PSBTSigningError.refused(plan.refusals) }
        let interactive = prompts?.isInteractive == true
        if let share = plan.feeShare, share > policy.maximumFeeShare, !yes, !interactive {
            throw PSBTSigningError.feeTooHigh(share: PSBT.percent(share), limit: PSBT.percent(policy.maximumFeeShare))
        }
        guard !plan.steps.isEmpty else { return PSBTSigned(psbt: psbt, plan: plan, signed: []) }
        if case .card(let card) = wallet.source, !card.isVersion4,
            let taproot = plan.steps.first(where: { if case .schnorr = $0.algorithm { true } else { false } })
        {
            throw PSBTSigningError.taprootNeedsVersion4(input: taproot.input)
        }
        if interactive && !yes {
            var review = SigningReview.psbt(plan)
            review.add("signed by", wallet.device)
            let n = plan.steps.count
            try confirm(review.rendered() + "\nSign \(n) input\(n == 1 ? "" : "s")?", yes: false)
        }
        var out = psbt
        var entries: [NewHistoryEntry] = []
        for step in plan.steps {
            // Ctrl-C between two signatures ends the command with nothing written or recorded.
            if prompts?.shouldInterrupt() == true { throw SessionError.cancelled }
            let (value, compact) = try bitcoinSignature(step, wallet: wallet)
            out.add(value, for: step)
            let address =
                (try? BitcoinScript.output(Self.addressKind(plan.inputs[step.input].kind), publicKey: step.publicKey))
                .flatMap { policy.chain.network.address(of: $0) } ?? Hex.encode(step.publicKey.compressed)
            entries.append(
                NewHistoryEntry(
                    keyName: wallet.keyName, kind: .bitcoin, digest: step.sighash, signature: compact,
                    signer: address, verified: true, keyID: wallet.keyRecord?.id))
        }
        if let store = existingStore() { for e in entries { _ = try store.recordSignature(e) } }
        return PSBTSigned(psbt: out, plan: plan, signed: plan.steps.map { ($0.input, $0.path) })
    }

    static func addressKind(_ kind: SpendKind) -> BitcoinAddressKind {
        switch kind {
        case .p2pkh: .p2pkh
        case .p2shP2wpkh: .p2shP2wpkh
        case .p2trKeyPath: .p2tr
        default: .p2wpkh
        }
    }

    /// One step's signature as the PSBT holds it, and its 64 bytes for the history; verified.
    func bitcoinSignature(_ step: SigningStep, wallet: BitcoinWallet) throws -> (value: [UInt8], compact: [UInt8]) {
        switch step.algorithm {
        case .ecdsa:
            let signature: ECDSASignature
            switch wallet.source {
            case .software(_, let nodes):
                guard let path = step.path, let key = try nodes.key(at: path).privateKey else {
                    throw PSBTSigningError.badSignature(input: step.input, reason: "no private key at its path")
                }
                signature = try key.sign(digest: step.sighash).signature
            case .lone(let key):
                signature = try key.sign(digest: step.sighash).signature
            case .card(let card):
                guard let path = step.path else {
                    throw PSBTSigningError.badSignature(input: step.input, reason: "the card signs only at a path")
                }
                let signed = try card.commands.sign(
                    digest: step.sighash,
                    option: .derive(try CardKeyPath(source: .master, components: path.components)))
                guard signed.publicKey == step.publicKey else {
                    throw PSBTSigningError.badSignature(
                        input: step.input, reason: "the card signed with another key than the one at \(path)")
                }
                signature = signed.signature.signature
            }
            let low = signature.normalized
            guard Secp256k1.verify(low, digest: step.sighash, publicKey: step.publicKey) else {
                throw PSBTSigningError.badSignature(input: step.input, reason: "the ECDSA signature does not verify")
            }
            return (low.der + [UInt8(truncatingIfNeeded: step.sighashType)], low.compact)
        case .schnorr(let tweak, let outputKey):
            let signature: [UInt8]
            switch wallet.source {
            case .software(_, let nodes):
                guard let path = step.path, let key = try nodes.key(at: path).privateKey else {
                    throw PSBTSigningError.badSignature(input: step.input, reason: "no private key at its path")
                }
                signature = try key.signSchnorr(message: step.sighash, tweak: tweak, aux: random.bytes(32))
            case .lone(let key):
                signature = try key.signSchnorr(message: step.sighash, tweak: tweak, aux: random.bytes(32))
            case .card:
                guard let path = step.path else {
                    throw PSBTSigningError.badSignature(input: step.input, reason: "the card signs only at a path")
                }
                let signed = try signSchnorrOnCard(digest: step.sighash, tweak: .bytes(tweak), path: path)
                guard signed.outputKey.bytes == outputKey else {
                    throw PSBTSigningError.badSignature(
                        input: step.input,
                        reason:
                            "the card's tweaked key \(signed.outputKey) is not the output key \(Hex.encode(outputKey)) the input pays"
                    )
                }
                signature = signed.signature
            }
            guard let q = try? XOnlyPublicKey(bytes: outputKey), q.verifySchnorr(signature, message: step.sighash)
            else {
                throw PSBTSigningError.badSignature(
                    input: step.input, reason: "the Schnorr signature does not verify under the output key")
            }
            return (step.sighashType == 0 ? signature : signature + [UInt8(step.sighashType)], signature)
        }
    }
}

extension Session {
    /// `psbt.create`: a PSBT of the inputs and outputs given, with the key origins of the keys
    /// `choice` names at the paths given (none needed when no path is given).
    public func createPSBT(
        inputs: [PSBTInputSpec], outputs: [PSBTOutputSpec], version: UInt32, lockTime: UInt32,
        keys choice: BitcoinKeyChoice?
    ) throws -> PSBT {
        let needsKeys = inputs.contains { $0.path != nil } || outputs.contains { $0.path != nil }
        var ring =
            try (needsKeys ? choice : nil).map { try bitcoinWallet($0).keys }
            ?? BitcoinKeyRing(fingerprint: nil) { _ in throw PSBTSigningError.noKey(name: "none", kind: "no key") }
        return try PSBT.create(inputs: inputs, outputs: outputs, version: version, lockTime: lockTime, keys: &ring)
    }
}

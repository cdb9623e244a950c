import WalletCrypto

// What a signer finds in a PSBT before it signs anything (docs/bitcoin.md, "What kcs checks"):
// each input's kind, whether it is ours (matched by the derived public key, never by the
// fingerprint alone), whether its previous transaction proves its amount, the signature hash to
// sign; each output's address and whether it is our change (the key re-derived and the script
// rebuilt for the path's script type); the totals and fee; and every reason not to sign, named
// by input and check. Pure: the keys come in as a `BitcoinKeyRing`.

/// The signing wallet's keys as a plan needs them: its master's fingerprint and the public key
/// at a path (a software HD key, or the card), or one key without a master (a WIF).
public struct BitcoinKeyRing {
    public let fingerprint: UInt32?
    public let lone: PublicKey?
    private let deriveKey: (DerivationPath) throws -> PublicKey
    private var cache: [DerivationPath: PublicKey] = [:]

    public init(fingerprint: UInt32?, lone: PublicKey? = nil, derive: @escaping (DerivationPath) throws -> PublicKey) {
        self.fingerprint = fingerprint
        self.lone = lone
        self.deriveKey = derive
    }

    /// The most distinct keys one plan derives: a PSBT's derivation records are the sender's to
    /// choose, and each key costs a derivation (an APDU on the card); a 1,000-input PSBT needs
    /// about 2,000.
    public static let maximumKeys = 4096

    /// The key at `path` under the master (each path derived once); a path deeper than BIP-32's
    /// 255 levels, or more than `maximumKeys` keys, is refused.
    public mutating func key(at path: DerivationPath) throws -> PublicKey {
        if let k = cache[path] { return k }
        guard path.depth <= DerivationPath.maximumDepth else {
            throw PSBTError.unusable(reason: "a key origin's path has \(path.depth) levels, more than BIP-32's 255")
        }
        guard cache.count < Self.maximumKeys else {
            throw PSBTError.unusable(
                reason: "the PSBT asks this wallet for more than \(Self.maximumKeys) keys; nothing was signed")
        }
        let k = try deriveKey(path)
        cache[path] = k
        return k
    }
}

/// How an input is spent, by its script (and redeem or witness script).
public enum SpendKind: Sendable, Equatable, CustomStringConvertible {
    case p2pkh, p2shP2wpkh, p2wpkh, p2trKeyPath
    case p2wshMultisig(MultisigScript), p2shP2wshMultisig(MultisigScript), p2shMultisig(MultisigScript)
    case unknown(String)

    public var description: String {
        switch self {
        case .p2pkh: "p2pkh"
        case .p2shP2wpkh: "p2sh-p2wpkh"
        case .p2wpkh: "p2wpkh"
        case .p2trKeyPath: "p2tr"
        case .p2wshMultisig(let m): "p2wsh \(m.shape) multisig"
        case .p2shP2wshMultisig(let m): "p2sh-p2wsh \(m.shape) multisig"
        case .p2shMultisig(let m): "p2sh \(m.shape) multisig"
        case .unknown(let what): what
        }
    }

    /// Segwit v0: BIP-143 commits to this input's amount only (the fee attack).
    public var isSegwitV0: Bool {
        switch self {
        case .p2shP2wpkh, .p2wpkh, .p2wshMultisig, .p2shP2wshMultisig: true
        default: false
        }
    }

    public var isLegacy: Bool {
        switch self {
        case .p2pkh, .p2shMultisig: true
        default: false
        }
    }

    public var multisig: MultisigScript? {
        switch self {
        case .p2wshMultisig(let m), .p2shP2wshMultisig(let m), .p2shMultisig(let m): m
        default: nil
        }
    }

    /// Estimated virtual size of the input once finalized (vbytes ×4 = weight units).
    var weight: Int {
        switch self {
        case .p2pkh: 148 * 4
        case .p2shP2wpkh: 91 * 4
        case .p2wpkh: 68 * 4 - 1
        case .p2trKeyPath: 230
        case .p2wshMultisig(let m): 41 * 4 + 2 + m.threshold * 73 + m.script.count + 3
        case .p2shP2wshMultisig(let m): 76 * 4 + 2 + m.threshold * 73 + m.script.count + 3
        case .p2shMultisig(let m): (41 + 1 + m.threshold * 73 + m.script.count + 3) * 4
        case .unknown: 68 * 4
        }
    }
}

/// Where an input's amount came from.
public enum AmountProof: Sendable, Equatable {
    /// From its previous transaction, whose txid matched.
    case previousTransaction
    /// From WITNESS_UTXO alone; a Taproot signature commits to every input's amount, so it is
    /// safe there (BIP-341), and unverified anywhere else.
    case witnessUTXOOnly
    case unknown
}

/// One signature the plan asks for.
public struct SigningStep: Sendable, Equatable {
    public enum Algorithm: Sendable, Equatable {
        /// ECDSA over the legacy or BIP-143 signature hash.
        case ecdsa
        /// BIP-340 with the BIP-341 tweak; the signature verifies under `outputKey`.
        case schnorr(tweak: [UInt8], outputKey: [UInt8])
    }

    public let input: Int
    public let algorithm: Algorithm
    public let sighash: [UInt8]
    public let sighashType: UInt32
    /// The key that signs (before any tweak), and where it is.
    public let publicKey: PublicKey
    public let path: DerivationPath?

    public init(
        input: Int, algorithm: Algorithm, sighash: [UInt8], sighashType: UInt32, publicKey: PublicKey,
        path: DerivationPath?
    ) {
        self.input = input
        self.algorithm = algorithm
        self.sighash = sighash
        self.sighashType = sighashType
        self.publicKey = publicKey
        self.path = path
    }
}

public struct PSBTInputPlan: Sendable {
    public let index: Int
    public let outpoint: OutPoint
    public let sequence: UInt32
    public let amount: UInt64?
    public let amountProof: AmountProof
    public let kind: SpendKind
    /// Our keys found in the input, with their paths.
    public var ours: [(key: PublicKey, path: DerivationPath?)]
    public let sighashType: UInt32?
    public var step: SigningStep?
    /// Signatures already there, and how many it needs.
    public let signatures: Int
    public let finalized: Bool
    /// Keys the input needs besides ours (a multisig's other cosigners).
    public var others: [[UInt8]]
    /// Why it is not signed (empty: it will be, or it is not ours).
    public var notes: [String]
}

public struct PSBTOutputPlan: Sendable {
    public let index: Int
    public let amount: UInt64
    public let script: [UInt8]
    public let address: String?
    public let template: ScriptTemplate
    /// Our change, with its path, when every check held.
    public let change: DerivationPath?
    public let notes: [String]
}

/// The signer's options (docs/bitcoin.md, "What kcs checks").
public struct PSBTPolicy: Sendable {
    public var chain: BitcoinChain
    public var allowMissingPrevTx = false
    public var allowSighash = false
    /// A fee above this share of what is sent is warned of (and refused in a batch run without --yes).
    public var maximumFeeShare = 0.10

    public init(chain: BitcoinChain) { self.chain = chain }
}

/// Everything a review shows and a signer needs.
public struct PSBTPlan: Sendable {
    public let version: UInt32
    public let chain: BitcoinChain
    public let txid: String
    public let transaction: BitcoinTransaction
    public var inputs: [PSBTInputPlan]
    public let outputs: [PSBTOutputPlan]
    /// Σ inputs, when every amount is known.
    public let inputTotal: UInt64?
    public let outputTotal: UInt64
    public let fee: UInt64?
    /// Whether the fee can be trusted: every amount proved (or committed by a Taproot signature).
    public let feeVerified: Bool
    public let virtualSize: Int
    /// What stops signing: each names its input or output and the check.
    public var refusals: [String]
    public var warnings: [String]

    public var steps: [SigningStep] { inputs.compactMap(\.step) }

    /// Σ of our inputs minus our change.
    public var spentByUs: UInt64? {
        let ours = inputs.filter { !$0.ours.isEmpty }
        guard ours.allSatisfy({ $0.amount != nil }) else { return nil }
        let spent = ours.reduce(0) { $0 + ($1.amount ?? 0) }
        let change = outputs.filter { $0.change != nil }.reduce(0) { $0 + $1.amount }
        return spent >= change ? spent - change : 0
    }

    /// Σ outputs that are not our change.
    public var sentToOthers: UInt64 { outputs.filter { $0.change == nil }.reduce(0) { $0 + $1.amount } }

    /// sat/vB, when the fee is known.
    public var feeRate: Double? { fee.map { Double($0) / Double(max(virtualSize, 1)) } }

    /// The fee as a share of what is sent to others.
    public var feeShare: Double? {
        guard let fee else { return nil }
        return sentToOthers == 0 ? (fee == 0 ? 0 : 1) : Double(fee) / Double(sentToOthers)
    }
}

extension PSBT {
    /// The plan for signing this PSBT with `keys` under `policy`.
    public func plan(keys: inout BitcoinKeyRing, policy: PSBTPolicy) throws -> PSBTPlan {
        guard let tx = unsignedTransaction else {
            throw PSBTError.unusable(
                reason: "the inputs' required lock times conflict (one needs a time, another a height)")
        }
        var refusals: [String] = []
        var warnings: [String] = []
        let spent = inputs.indices.map { spentOutput($0) }
        // Amounts, proofs and kinds first: the Taproot sighash needs every input's spent output.
        var inputPlans: [PSBTInputPlan] = []
        for (i, map) in inputs.enumerated() {
            let prevout = tx.inputs[i].previous
            var proof: AmountProof = .unknown
            var notes: [String] = []
            if let prev = map.nonWitnessUTXO {
                if prev.txidHash != prevout.hash {
                    refusals.append(
                        "input \(i): its previous transaction has txid \(prev.txid), not the \(prevout.txid) it spends")
                } else if Int(prevout.index) >= prev.outputs.count {
                    refusals.append(
                        "input \(i): its previous transaction has \(prev.outputs.count) outputs, no output \(prevout.index)"
                    )
                } else {
                    proof = .previousTransaction
                    if let w = map.witnessUTXO, w != prev.outputs[Int(prevout.index)] {
                        refusals.append(
                            "input \(i): WITNESS_UTXO (\(w.amount) sat) differs from output \(prevout.index) of its previous transaction (\(prev.outputs[Int(prevout.index)].amount) sat)"
                        )
                    }
                }
            } else if map.witnessUTXO != nil {
                proof = .witnessUTXOOnly
            }
            let kind = Self.spendKind(map, spent: spent[i], index: i, refusals: &refusals)
            if let t = map.sighashType {
                let ok = t == SighashType.all || (kind == .p2trKeyPath && t == SighashType.default)
                if !ok && !policy.allowSighash && !map.isFinalized {
                    notes.append(
                        "SIGHASH_\(SighashType.name(t)) leaves \(SighashType.leavesFree(t)) free to change; --allow-sighash signs it"
                    )
                }
            }
            inputPlans.append(
                PSBTInputPlan(
                    index: i, outpoint: prevout, sequence: tx.inputs[i].sequence,
                    amount: proof == .unknown ? nil : spent[i]?.amount, amountProof: proof, kind: kind, ours: [],
                    sighashType: map.sighashType, step: nil,
                    signatures: map.partialSignatures.count + (map.value(PSBTInputType.tapKeySig) == nil ? 0 : 1),
                    finalized: map.isFinalized, others: [], notes: notes))
        }
        let hasTaproot = inputPlans.contains { $0.kind == .p2trKeyPath }
        if hasTaproot, let missing = spent.firstIndex(where: { $0 == nil }) {
            refusals.append(
                "input \(missing): its spent output is not in the PSBT, and a Taproot input's signature hashes every input's (BIP-341)"
            )
        }
        for i in inputPlans.indices
        where inputPlans[i].kind.isSegwitV0 && inputPlans[i].amountProof != .previousTransaction {
            guard !inputs[i].isFinalized || inputs[i].nonWitnessUTXO == nil else { continue }
            let what =
                "input \(i): no previous transaction (NON_WITNESS_UTXO), so its amount — and the fee — cannot be verified (the segwit v0 fee attack)"
            if policy.allowMissingPrevTx {
                warnings.append(what + "; signed anyway (--allow-missing-prevtx): fee cannot be verified")
            } else {
                refusals.append(what + "; --allow-missing-prevtx signs without it")
            }
        }
        // Our keys, and what each of our inputs signs.
        for i in inputPlans.indices {
            try matchKeys(&inputPlans[i], map: inputs[i], tx: tx, spent: spent, keys: &keys, policy: policy)
        }
        let outputPlans = try tx.outputs.indices.map { o in
            try Self.outputPlan(o, tx.outputs[o], map: outputs[o], keys: &keys, chain: policy.chain)
        }
        // Totals.
        let outputTotal = tx.outputs.reduce(UInt64(0)) { $0 &+ $1.amount }
        for (o, out) in tx.outputs.enumerated() where out.amount > BitcoinTransaction.maxMoney {
            refusals.append("output \(o): \(out.amount) sat is more than 21 million bitcoin")
        }
        let amounts = inputPlans.map { $0.amount ?? spent[$0.index]?.amount }
        let inputTotal: UInt64? = amounts.allSatisfy { $0 != nil } ? amounts.reduce(0) { $0 &+ ($1 ?? 0) } : nil
        if let inputTotal, inputTotal < outputTotal {
            refusals.append("the outputs (\(outputTotal) sat) spend more than the inputs (\(inputTotal) sat)")
        }
        let fee = inputTotal.flatMap { $0 >= outputTotal ? $0 - outputTotal : nil }
        let allTaproot = inputPlans.allSatisfy { $0.kind == .p2trKeyPath }
        let feeVerified =
            fee != nil
            && inputPlans.allSatisfy {
                $0.amountProof == .previousTransaction || (allTaproot && $0.amountProof == .witnessUTXOOnly)
            }
        let weight =
            (8 + BitcoinWriter.compactSize(tx.inputs.count).count + BitcoinWriter.compactSize(tx.outputs.count).count
                + tx.outputs.reduce(0) { $0 + $1.serialized.count }) * 4
            + (inputPlans.contains { !$0.kind.isLegacy } ? 2 : 0)
            + inputPlans.reduce(0) { $0 + $1.kind.weight }
        var plan = PSBTPlan(
            version: version, chain: policy.chain, txid: uniqueID ?? tx.txid, transaction: tx, inputs: inputPlans,
            outputs: outputPlans, inputTotal: inputTotal, outputTotal: outputTotal, fee: fee, feeVerified: feeVerified,
            virtualSize: (weight + 3) / 4, refusals: refusals, warnings: warnings)
        if let share = plan.feeShare, share > policy.maximumFeeShare {
            plan.warnings.append(
                "the fee is \(Self.percent(share)) of what is sent to others, above the \(Self.percent(policy.maximumFeeShare)) limit"
            )
        }
        if plan.inputs.allSatisfy({ $0.ours.isEmpty }) {
            plan.warnings.append("no input is this wallet's: nothing to sign")
        } else if plan.inputs.contains(where: { $0.ours.isEmpty && !$0.finalized }) {
            plan.warnings.append("some inputs are not this wallet's: others must sign them too")
        }
        return plan
    }

    public static func percent(_ share: Double) -> String {
        let p = share * 100
        return p >= 10 ? String(format: "%.0f%%", p) : String(format: "%.2f%%", p)
    }

    /// An input's kind from its spent output and scripts; a redeem or witness script that does
    /// not hash to what the output commits to is refused.
    static func spendKind(_ map: PSBTMap, spent: TxOutput?, index i: Int, refusals: inout [String]) -> SpendKind {
        guard let spent else { return .unknown("unknown (no spent output)") }
        switch ScriptTemplate(spent.script) {
        case .p2pkh: return .p2pkh
        case .p2wpkh: return .p2wpkh
        case .p2tr: return .p2trKeyPath
        case .p2wsh(let h):
            guard let ws = map.witnessScript else { return .unknown("p2wsh (no witness script)") }
            guard Hash.sha256(ws) == h else {
                refusals.append("input \(i): its witness script does not hash to the P2WSH program it spends")
                return .unknown("p2wsh")
            }
            return MultisigScript(ws).map { .p2wshMultisig($0) } ?? .unknown("p2wsh (not a multisig)")
        case .p2sh(let h):
            guard let rs = map.redeemScript else { return .unknown("p2sh (no redeem script)") }
            guard Hash.hash160(rs) == h else {
                refusals.append("input \(i): its redeem script does not hash to the P2SH script it spends")
                return .unknown("p2sh")
            }
            switch ScriptTemplate(rs) {
            case .p2wpkh: return .p2shP2wpkh
            case .p2wsh(let wh):
                guard let ws = map.witnessScript else { return .unknown("p2sh-p2wsh (no witness script)") }
                guard Hash.sha256(ws) == wh else {
                    refusals.append(
                        "input \(i): its witness script does not hash to the P2WSH program of its redeem script")
                    return .unknown("p2sh-p2wsh")
                }
                return MultisigScript(ws).map { .p2shP2wshMultisig($0) } ?? .unknown("p2sh-p2wsh (not a multisig)")
            default:
                return MultisigScript(rs).map { .p2shMultisig($0) } ?? .unknown("p2sh (not a multisig)")
            }
        case .opReturn: return .unknown("op_return")
        case .other: return .unknown("unknown script")
        }
    }

    /// Finds our keys in input `plan` (by derivation, the derived key compared) and the step
    /// that signs it.
    func matchKeys(
        _ plan: inout PSBTInputPlan, map: PSBTMap, tx: BitcoinTransaction, spent: [TxOutput?],
        keys: inout BitcoinKeyRing, policy: PSBTPolicy
    ) throws {
        let i = plan.index
        guard !plan.finalized else { return }
        if plan.kind == .p2trKeyPath {
            try matchTaproot(&plan, map: map, tx: tx, spent: spent, keys: &keys, policy: policy)
            return
        }
        // Candidate keys: every derivation with our fingerprint, its key re-derived and compared.
        var found: [(PublicKey, DerivationPath?)] = []
        for (pk, origin) in map.derivations(type: PSBTInputType.bip32Derivation) {
            if let fp = keys.fingerprint, origin.fingerprint == fp {
                let derived = try keys.key(at: origin.path)
                if derived.compressed == pk || derived.uncompressed == pk {
                    found.append((derived, origin.path))
                } else {
                    plan.notes.append(
                        "its derivation \(origin) carries this wallet's fingerprint but names another key than this wallet's at that path: not signed"
                    )
                }
            } else if let lone = keys.lone, lone.compressed == pk {
                found.append((lone, nil))
            }
        }
        if found.isEmpty, let lone = keys.lone { found.append((lone, nil)) }
        // The key must be the one the script pays.
        let script = spent[i]?.script ?? []
        var inScript: [(PublicKey, DerivationPath?)] = []
        for (key, path) in found {
            let h = Hash.hash160(key.compressed)
            let matches: Bool
            switch plan.kind {
            case .p2pkh:
                matches =
                    script == BitcoinScript.p2pkh(h) || script == BitcoinScript.p2pkh(Hash.hash160(key.uncompressed))
            case .p2wpkh: matches = script == BitcoinScript.p2wpkh(h)
            case .p2shP2wpkh: matches = map.redeemScript == BitcoinScript.p2wpkh(h)
            case .p2wshMultisig(let m), .p2shP2wshMultisig(let m), .p2shMultisig(let m):
                matches = m.keys.contains(key.compressed)
            default: matches = false
            }
            if matches {
                inScript.append((key, path))
            } else if path != nil {
                plan.notes.append("this wallet's key at \(path!) is not the key input \(i)'s script pays: not signed")
            }
        }
        plan.ours = inScript.map { (key: $0.0, path: $0.1) }
        if let m = plan.kind.multisig {
            plan.others = m.keys.filter { k in !inScript.contains { $0.0.compressed == k } }
        }
        guard let (key, path) = inScript.first else { return }
        if let p = path, let problem = Self.networkProblem(p, chain: policy.chain) {
            plan.notes.append(problem)
            return
        }
        let alreadySigned = map.partialSignatures.contains { $0.publicKey == key.compressed }
        if alreadySigned {
            plan.notes.append("already signed by this wallet's key")
            return
        }
        let type = map.sighashType ?? SighashType.all
        guard plan.notes.isEmpty || (policy.allowSighash && plan.notes.allSatisfy { $0.hasPrefix("SIGHASH_") }) else {
            return
        }
        let sighash: [UInt8]
        switch plan.kind {
        case .p2pkh:
            guard map.nonWitnessUTXO != nil else {
                plan.notes.append(
                    "a legacy input is signed only with its previous transaction (NON_WITNESS_UTXO), which it lacks")
                return
            }
            sighash = Sighash.legacy(tx, index: i, scriptCode: script, type: type)
        case .p2shMultisig(let m):
            guard map.nonWitnessUTXO != nil else {
                plan.notes.append(
                    "a legacy input is signed only with its previous transaction (NON_WITNESS_UTXO), which it lacks")
                return
            }
            sighash = Sighash.legacy(tx, index: i, scriptCode: m.script, type: type)
        case .p2wpkh, .p2shP2wpkh:
            guard let amount = spent[i]?.amount else { return }
            sighash = Sighash.segwitV0(
                tx, index: i, scriptCode: BitcoinScript.p2pkh(Hash.hash160(key.compressed)), amount: amount, type: type)
        case .p2wshMultisig, .p2shP2wshMultisig:
            guard let amount = spent[i]?.amount, let ws = map.witnessScript else { return }
            sighash = Sighash.segwitV0(tx, index: i, scriptCode: ws, amount: amount, type: type)
        default: return
        }
        plan.step = SigningStep(
            input: i, algorithm: .ecdsa, sighash: sighash, sighashType: type, publicKey: key, path: path)
    }

    func matchTaproot(
        _ plan: inout PSBTInputPlan, map: PSBTMap, tx: BitcoinTransaction, spent: [TxOutput?],
        keys: inout BitcoinKeyRing, policy: PSBTPolicy
    ) throws {
        let i = plan.index
        guard case .p2tr(let program) = ScriptTemplate(spent[i]?.script ?? []) else { return }
        let internalKey = map.value(PSBTInputType.tapInternalKey)
        let root = map.value(PSBTInputType.tapMerkleRoot)
        var found: (PublicKey, DerivationPath?)?
        for (x, origin) in map.tapDerivations(type: PSBTInputType.tapBIP32Derivation) where origin.leafHashes.isEmpty {
            guard internalKey == nil || internalKey! == x else { continue }
            if let fp = keys.fingerprint, origin.origin.fingerprint == fp {
                let derived = try keys.key(at: origin.origin.path)
                if derived.xOnly.key.bytes == x {
                    found = (derived, origin.origin.path)
                } else {
                    plan.notes.append(
                        "its Taproot derivation \(origin.origin) carries this wallet's fingerprint but names another key than this wallet's at that path: not signed"
                    )
                }
            } else if let lone = keys.lone, lone.xOnly.key.bytes == x {
                found = (lone, nil)
            }
        }
        if found == nil, let lone = keys.lone, internalKey == nil || internalKey! == lone.xOnly.key.bytes {
            found = (lone, nil)
        }
        guard let (key, path) = found else { return }
        let tweak = Sighash.taprootTweak(internalKey: key.xOnly.key.bytes, merkleRoot: root)
        guard let output = try? key.xOnly.key.tweaked(by: tweak), output.bytes == program else {
            if path != nil || keys.lone == nil {
                plan.notes.append(
                    "this wallet's key tweaked (BIP-341) is not the output key input \(i) pays: not signed")
            }
            return
        }
        plan.ours = [(key: key, path: path)]
        if let p = path, let problem = Self.networkProblem(p, chain: policy.chain) {
            plan.notes.append(problem)
            return
        }
        if map.value(PSBTInputType.tapKeySig) != nil {
            plan.notes.append("already signed by this wallet's key")
            return
        }
        guard plan.notes.isEmpty || (policy.allowSighash && plan.notes.allSatisfy { $0.hasPrefix("SIGHASH_") }) else {
            return
        }
        let type = map.sighashType ?? SighashType.default
        let sighash: [UInt8]
        do { sighash = try Sighash.taproot(tx, index: i, spent: spent, type: type) } catch {
            plan.notes.append("its Taproot signature hash cannot be computed: \(error)")
            return
        }
        plan.step = SigningStep(
            input: i, algorithm: .schnorr(tweak: tweak, outputKey: program), sighash: sighash, sighashType: type,
            publicKey: key, path: path)
    }

    /// A path whose coin type is not the chain's (0' on main, 1' on every test chain), said as
    /// the refusal: a test PSBT is never signed with a mainnet key, nor the reverse.
    static func networkProblem(_ path: DerivationPath, chain: BitcoinChain) -> String? {
        let c = path.components
        guard c.count >= 2, [44, 49, 84, 86, 48].contains(c[0].index), c[0].hardened, c[1].hardened else { return nil }
        guard c[1].index == 0 || c[1].index == 1, c[1].index != chain.coinType else { return nil }
        return
            "its key is at \(path), a \(c[1].index == 0 ? "mainnet" : "test-chain") path (coin type \(c[1].index)'), "
            + "and this is \(chain == .main ? "mainnet" : "the \(chain) chain"): not signed (--chain names the chain)"
    }

    /// An output: its address on the chain, and whether it is our change — our fingerprint, the
    /// key re-derived, and the script rebuilt for the path's script type (44' P2PKH, 49'
    /// P2SH-P2WPKH, 84' P2WPKH, 86' P2TR) all agreeing.
    static func outputPlan(
        _ o: Int, _ out: TxOutput, map: PSBTMap, keys: inout BitcoinKeyRing, chain: BitcoinChain
    ) throws -> PSBTOutputPlan {
        var notes: [String] = []
        var change: DerivationPath?
        var candidates: [([UInt8], KeyOrigin, Bool)] = map.derivations(type: 0x02).map {
            ($0.publicKey, $0.origin, false)
        }
        candidates += map.tapDerivations(type: 0x07).filter { $0.origin.leafHashes.isEmpty }.map {
            ($0.xOnly, $0.origin.origin, true)
        }
        for (pk, origin, taproot) in candidates {
            guard let fp = keys.fingerprint, origin.fingerprint == fp else { continue }
            let derived = try keys.key(at: origin.path)
            guard (taproot ? derived.xOnly.key.bytes : derived.compressed) == pk else {
                notes.append("its derivation \(origin) names another key than this wallet's at that path: not change")
                continue
            }
            let purpose = origin.path.components.first?.index
            let kind: BitcoinAddressKind? =
                switch purpose {
                case 44: .p2pkh
                case 49: .p2shP2wpkh
                case 84: .p2wpkh
                case 86: .p2tr
                default: nil
                }
            guard let kind, let script = try? BitcoinScript.output(kind, publicKey: derived) else {
                notes.append("its path \(origin.path) is not a BIP-44/49/84/86 path: not shown as change")
                continue
            }
            guard script == out.script else {
                notes.append(
                    "this wallet's key at \(origin.path) makes a \(kind) script, not this output's: not change")
                continue
            }
            let c = origin.path.components
            if c.count == 5, c[3].index == 1, !c[3].hardened, c[4].index < 1_000_000 {
                change = origin.path
                if let problem = networkProblem(origin.path, chain: chain) { notes.append(problem) }
            } else {
                notes.append("ours at \(origin.path), which is not a change path (…/1/i): a payment to this wallet")
            }
        }
        return PSBTOutputPlan(
            index: o, amount: out.amount, script: out.script, address: chain.network.address(of: out.script),
            template: ScriptTemplate(out.script), change: change, notes: notes)
    }
}

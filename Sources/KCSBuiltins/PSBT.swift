import Foundation
import KCSErrors
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession

// The `psbt` namespace (docs/bitcoin.md): read, create, show, sign, finalize, extract and
// combine partially signed Bitcoin transactions. The session reads, checks and signs
// (WalletSession/Bitcoin/); this converts values.

extension Builtins {
    static let psbtType = ValueType.oneOf([.string, .bytes, .map])

    static let chainOption = OptionSpec(
        "chain", .string, "main, test, testnet4, signet or regtest (else the coin type of the PSBT's paths, else main)")

    static let psbtKeyOption = OptionSpec(
        "key", givenKeyType,
        "the keys that sign: a stored key (a name) or a key value (an HD key, a private key, WIF); else the active key")

    static let psbtPolicyOptions: [OptionSpec] = [
        chainOption, psbtKeyOption,
        OptionSpec(
            "allow-missing-prevtx", nil,
            "sign a segwit v0 input without its previous transaction (its amount, and the fee, cannot be verified)"),
        OptionSpec("allow-sighash", nil, "sign with a SIGHASH type other than ALL/DEFAULT that the PSBT asks for"),
        OptionSpec(
            "max-fee-share", .oneOf([.int, .string]),
            "the fee, as a percentage of what is sent, above which kcs warns (and a batch run refuses without --yes); default 10"
        ),
    ]

    static let psbt: [Builtin] = [
        Builtin(
            "psbt.read", params: [ParamSpec("psbt", psbtType)],
            summary:
                "A PSBT from base64, hex or a file (binary .psbt or text), checked as BIP-174/370/371 require: {version, txid, inputs, outputs, locktime, base64, bytes}.",
            example: "psbt.read \"tx.psbt\""
        ) { args in
            .map(ValueMap(psbtSummary(try psbtArgument(args))))
        },

        Builtin(
            "psbt.create", params: [ParamSpec("inputs", .list), ParamSpec("outputs", .list)],
            options: [
                chainOption, psbtKeyOption,
                OptionSpec("v2", nil, "a version 2 PSBT (BIP-370) instead of version 0"),
                OptionSpec(
                    "locktime", .int, "the lock time (a block height, or a Unix time from 500000000)",
                    in: 0...Int(UInt32.max)),
            ],
            summary:
                "An unsigned PSBT: inputs [{txid, vout, amount, address|script, prevtx, path, sequence}], outputs [{address|script, amount, path}]; a path fills this wallet's key origin (and the script).",
            example:
                "psbt.create [{\"txid\": \"75ddabb27b8845f5247975c8a5ba7c6f336c4570708ebe230caf6db5217ae858\", \"vout\": 0, \"amount\": 100000, \"path\": \"m/84'/1'/0'/0/0\"}] [{\"address\": \"tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx\", \"amount\": 90000}] --key \"xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi\" --chain test"
        ) { args in
            let chain = try Session.bitcoinChain(args.string("chain"), for: nil)
            let inputs = try args.list("inputs").enumerated().map { try psbtInputSpec($0.element, $0.offset, chain) }
            let outputs = try args.list("outputs").enumerated().map { try psbtOutputSpec($0.element, $0.offset, chain) }
            let psbt = try args.session().createPSBT(
                inputs: inputs, outputs: outputs, version: args.flag("v2") ? 2 : 0,
                lockTime: UInt32(args.int("locktime") ?? 0), keys: try bitcoinKeyChoice(args))
            return .map(ValueMap(psbtSummary(psbt)))
        },

        Builtin(
            "psbt.show", traits: [.mayOpenVault], params: [ParamSpec("psbt", psbtType)],
            options: psbtPolicyOptions + [OptionSpec("json", nil, "a map of every field instead of the review text")],
            summary:
                "What a PSBT spends and pays, checked before signing: network, txid, lock time, RBF, each input (amount, type, owner, proof) and output (address, CHANGE), totals, fee and rate, warnings.",
            example: "psbt.show \"tx.psbt\" --chain test"
        ) { args in
            let psbt = try psbtArgument(args)
            let session = try args.session()
            let policy = try psbtPolicy(args, psbt)
            let choice: BitcoinKeyChoice? = try bitcoinKeyChoice(args, required: false)
            let plan = try session.planPSBT(psbt, keys: choice, policy: policy)
            return args.flag("json") ? planValue(plan) : .string(SigningReview.psbt(plan).rendered())
        },

        Builtin(
            "psbt.sign", traits: [.mayOpenVault], params: [ParamSpec("psbt", psbtType)],
            options: psbtPolicyOptions + [
                OptionSpec("out", .string, "write the signed PSBT here (binary for a .psbt name, else base64)"),
                OptionSpec("yes", nil, "sign without asking at a terminal, and in a batch run above the fee limit"),
                OptionSpec(
                    "ur", .string,
                    "answer a UR of this type too: crypto-psbt or psbt (a PSBT read from a QR code answers in its own type)"
                ),
            ],
            summary:
                "Signs every input of a PSBT the active key (or --key) can sign, after every check of psbt.show: {psbt, signed, txid, complete}.",
            example: "psbt.sign \"tx.psbt\" --out \"signed.psbt\" --chain test"
        ) { args in
            let psbt = try psbtArgument(args)
            let session = try args.session()
            let result = try session.signPSBT(
                psbt, keys: try bitcoinKeyChoice(args) ?? .active, policy: try psbtPolicy(args, psbt),
                yes: args.flag("yes"))
            if let out = args.string("out") { try session.writePSBT(result.psbt, to: out) }
            var finalCheck = result.psbt
            let complete = finalCheck.finalize().incomplete.isEmpty
            return .map(
                ValueMap(
                    psbtSummary(result.psbt) + [
                        ("signed", .list(result.signed.map { .int($0.input) })),
                        ("complete", .bool(complete)),
                    ] + (try psbtUR(result.psbt, args))))
        },

        Builtin(
            "psbt.finalize", params: [ParamSpec("psbt", psbtType)],
            options: [OptionSpec("out", .string, "write the PSBT here (binary for a .psbt name, else base64)")],
            summary:
                "Builds the final scriptSig and witness of every input whose signatures are there: {psbt, finalized, incomplete, complete}.",
            example: "psbt.finalize \"signed.psbt\""
        ) { args in
            var psbt = try psbtArgument(args)
            let (done, left) = psbt.finalize()
            if let out = args.string("out") { try args.session().writePSBT(psbt, to: out) }
            return .map(
                ValueMap(
                    psbtSummary(psbt) + [
                        ("finalized", .list(done.map { .int($0) })),
                        ("incomplete", .list(left.map { .string("input \($0.input): \($0.reason)") })),
                        ("complete", .bool(left.isEmpty && psbt.inputs.allSatisfy(\.isFinalized))),
                    ]))
        },

        Builtin(
            "psbt.extract", params: [ParamSpec("psbt", psbtType)],
            summary:
                "The network transaction of a complete PSBT (finalized first where it can be): {tx, txid, wtxid, vsize}.",
            example: "psbt.extract \"signed.psbt\""
        ) { args in
            var psbt = try psbtArgument(args)
            psbt.finalize()
            let tx = try psbt.extract()
            return .map(
                ValueMap([
                    ("tx", .bytes(tx.serialized)), ("txid", .string(tx.txid)), ("wtxid", .string(tx.wtxid)),
                    ("vsize", .int(tx.virtualSize)),
                ]))
        },

        Builtin(
            "psbt.combine", params: [ParamSpec("psbts", .list)],
            options: [OptionSpec("out", .string, "write the PSBT here (binary for a .psbt name, else base64)")],
            summary:
                "One PSBT with the records of several of the same transaction (each cosigner's signatures): {psbt, …}.",
            example: "psbt.combine [\"a.psbt\", \"b.psbt\"]"
        ) { args in
            let session = try args.session()
            let all = try args.list("psbts").map { v in try psbtValue(v, session) }
            guard var combined = all.first else {
                throw BuiltinError.outOfRange(name: "psbts", expected: "at least one PSBT", got: "an empty list")
            }
            for p in all.dropFirst() { combined = try combined.combined(with: p) }
            if let out = args.string("out") { try session.writePSBT(combined, to: out) }
            return .map(ValueMap(psbtSummary(combined)))
        },
    ]
}

// MARK: - Values in and out

extension Builtins {
    static func psbtArgument(_ args: CallArguments) throws -> PSBT { try psbtValue(args.value("psbt"), args.session()) }

    /// A PSBT given as text or a file name, bytes, or a map with a `psbt` field (another psbt command's answer).
    static func psbtValue(_ value: Value?, _ session: Session) throws -> PSBT {
        switch value {
        case .string(let s)?: return try session.readPSBT(s)
        case .bytes(let b)?: return try PSBT.read(b)
        case .map(let m)? where m["psbt"] != nil: return try psbtValue(m["psbt"], session)
        default:
            throw BuiltinError.outOfRange(
                name: "psbt", expected: "a PSBT: base64 or hex text, a file, bytes, or a map with a psbt field",
                got: value?.typeName ?? "nothing")
        }
    }

    /// The `ur` field of an answer: the PSBT as a UR of the type `--ur` names, else of the type
    /// the PSBT came in from a QR code (Sparrow reads its answer back only in the type it sent).
    static func psbtUR(_ psbt: PSBT, _ args: CallArguments) throws -> [(String, Value)] {
        var type = args.string("ur")
        if type == nil, case .map(let m)? = args.value("psbt"), case .string(let t)? = m["urType"] { type = t }
        guard let type else { return [] }
        guard type == "crypto-psbt" || type == "psbt" else {
            throw BuiltinError.badChoice(option: "ur", expected: ["crypto-psbt", "psbt"], got: type)
        }
        let ur = try UniformResource(type: type, cbor: CBOR.bytes(psbt.serialized).encoded)
        return [("ur", .string(ur.singlePart))]
    }

    static func psbtSummary(_ psbt: PSBT) -> [(String, Value)] {
        let tx = psbt.unsignedTransaction
        return [
            ("psbt", .string(psbt.base64)), ("version", .int(Int(psbt.version))),
            ("txid", psbt.uniqueID.map(Value.string) ?? .null), ("inputs", .int(psbt.inputs.count)),
            ("outputs", .int(psbt.outputs.count)), ("locktime", tx.map { .int(Int($0.lockTime)) } ?? .null),
        ]
    }

    /// `--key` as Bitcoin keys: an HD key value signs for every path under it; else the stored
    /// key named, else the active key (nil when none and `required` is false).
    static func bitcoinKeyChoice(_ args: CallArguments, required: Bool = true) throws -> BitcoinKeyChoice? {
        switch args.value("key") {
        case .domain(let d)?:
            guard let hd = d as? HDKeyValue else { break }
            guard hd.key.privateKey != nil else { throw KeyCommandError.publicKeyGiven }
            return .givenHD(hd.key)
        case .secret(let s)? where s.kind == SecretKind.xprv.rawValue:
            return .givenHD(try ExtendedKey(try secretText(s)))
        case .string(let text)? where SecretShape.of(text) == .extendedPrivateKey:
            return .givenHD(try ExtendedKey(text))
        case .string(let text)? where (try? args.session().existingStore()?.key(named: text)) != nil:
            return .stored(text)
        case nil:
            let active = try args.session().activeKey
            return required || active != nil ? .active : nil
        default: break
        }
        guard case .given(let key, _) = try givenKey(args) else { return .stored(args.string("key") ?? "") }
        return .givenKey(key)
    }

    static func psbtPolicy(_ args: CallArguments, _ psbt: PSBT) throws -> PSBTPolicy {
        var policy = PSBTPolicy(chain: try Session.bitcoinChain(args.string("chain"), for: psbt))
        policy.allowMissingPrevTx = args.flag("allow-missing-prevtx")
        policy.allowSighash = args.flag("allow-sighash")
        if let given = args.value("max-fee-share") {
            let text: String =
                switch given {
                case .int(let n): String(n)
                case .string(let s): s.hasSuffix("%") ? String(s.dropLast()) : s
                default: ""
                }
            guard let percent = Double(text), percent > 0, percent <= 100 else {
                throw BuiltinError.outOfRange(
                    name: "--max-fee-share", expected: "a percentage above 0, at most 100", got: text)
            }
            policy.maximumFeeShare = percent / 100
        }
        return policy
    }

    static func satoshis(_ v: Value?, _ what: String) throws -> UInt64? {
        guard let v else { return nil }
        guard case .int(let n) = v, n >= 0, UInt64(n) <= BitcoinTransaction.maxMoney else {
            throw BuiltinError.outOfRange(
                name: what, expected: "an amount in satoshis, 0 to 2100000000000000", got: "\(v)")
        }
        return UInt64(n)
    }

    static func hexField(_ v: Value?, _ what: String) throws -> [UInt8]? {
        switch v {
        case nil: return nil
        case .bytes(let b)?: return b
        case .string(let s)?:
            guard let b = try? Hex.decode(s.hasPrefix("0x") ? String(s.dropFirst(2)) : s) else {
                throw BuiltinError.outOfRange(name: what, expected: "hex", got: s)
            }
            return b
        default: throw BuiltinError.outOfRange(name: what, expected: "hex text or bytes", got: v!.typeName)
        }
    }

    static func pathField(_ v: Value?, _ what: String) throws -> DerivationPath? {
        switch v {
        case nil: return nil
        case .string(let s)?: return try DerivationPath(s)
        case .domain(let d)?: if let p = d as? PathValue { return p.path }
        default: break
        }
        throw BuiltinError.outOfRange(name: what, expected: "a derivation path", got: v!.typeName)
    }

    /// An output script from `address` (for `chain`) or `script`.
    static func scriptField(_ m: ValueMap, _ what: String, _ chain: BitcoinChain) throws -> [UInt8]? {
        if case .string(let a)? = m["address"] { return try chain.network.script(of: a) }
        return try hexField(m["script"], what + ".script")
    }

    static func psbtInputSpec(_ v: Value, _ i: Int, _ chain: BitcoinChain) throws -> PSBTInputSpec {
        let what = "inputs[\(i)]"
        guard case .map(let m) = v else {
            throw BuiltinError.outOfRange(name: what, expected: "a map", got: v.typeName)
        }
        let prev = try hexField(m["prevtx"], what + ".prevtx").map { b in try BitcoinTransaction.parse(b) }
        let given = try hexField(m["txid"], what + ".txid")
        guard let txid = given ?? prev.map({ Array($0.txidHash.reversed()) }), txid.count == 32 else {
            throw BuiltinError.outOfRange(
                name: what + ".txid", expected: "a 32-byte txid (hex, as shown)", got: "\(m["txid"] ?? .null)")
        }
        guard case .int(let vout)? = m["vout"], vout >= 0, vout <= Int(UInt32.max) else {
            throw BuiltinError.outOfRange(
                name: what + ".vout", expected: "the output index, 0 or more", got: "\(m["vout"] ?? .null)")
        }
        var sequence: UInt32 = 0xffff_fffd
        if case .int(let s)? = m["sequence"], s >= 0, s <= Int(UInt32.max) { sequence = UInt32(s) }
        return PSBTInputSpec(
            outpoint: OutPoint(hash: txid.reversed(), index: UInt32(vout)),
            amount: try satoshis(m["amount"], what + ".amount"),
            script: try scriptField(m, what, chain), previousTransaction: prev,
            path: try pathField(m["path"], what + ".path"),
            sequence: sequence)
    }

    static func psbtOutputSpec(_ v: Value, _ o: Int, _ chain: BitcoinChain) throws -> PSBTOutputSpec {
        let what = "outputs[\(o)]"
        guard case .map(let m) = v else {
            throw BuiltinError.outOfRange(name: what, expected: "a map", got: v.typeName)
        }
        guard let amount = try satoshis(m["amount"], what + ".amount") else {
            throw BuiltinError.outOfRange(name: what + ".amount", expected: "an amount in satoshis", got: "nothing")
        }
        return PSBTOutputSpec(
            amount: amount, script: try scriptField(m, what, chain), path: try pathField(m["path"], what + ".path"))
    }

    /// `psbt.show --json`: the plan as data.
    static func planValue(_ plan: PSBTPlan) -> Value {
        let inputs: [Value] = plan.inputs.map { i in
            .map(
                ValueMap([
                    ("outpoint", .string(i.outpoint.description)), ("amount", i.amount.map { .int(Int($0)) } ?? .null),
                    ("type", .string(i.kind.description)),
                    ("path", i.ours.first?.path.map { .string($0.description) } ?? .null),
                    ("ours", .bool(!i.ours.isEmpty)), ("willSign", .bool(i.step != nil)),
                    ("prevtxVerified", .bool(i.amountProof == .previousTransaction)),
                    ("sighash", i.sighashType.map { .string(SighashType.name($0)) } ?? .null),
                    ("digest", i.step.map { .bytes($0.sighash) } ?? .null),
                    ("signatures", .int(i.signatures)), ("finalized", .bool(i.finalized)),
                    ("notes", .list(i.notes.map(Value.string))),
                ]))
        }
        let outputs: [Value] = plan.outputs.map { o in
            .map(
                ValueMap([
                    ("address", o.address.map(Value.string) ?? .null), ("script", .bytes(o.script)),
                    ("amount", .int(Int(o.amount))), ("change", o.change.map { .string($0.description) } ?? .null),
                    ("notes", .list(o.notes.map(Value.string))),
                ]))
        }
        let int = { (n: UInt64?) in n.map { Value.int(Int($0)) } ?? .null }
        return .map(
            ValueMap([
                ("network", .string(plan.chain.rawValue)), ("version", .int(Int(plan.version))),
                ("txid", .string(plan.txid)),
                ("locktime", .int(Int(plan.transaction.lockTime))),
                ("rbf", .bool(plan.transaction.inputs.contains { $0.sequence < 0xffff_fffe })),
                ("inputs", .list(inputs)), ("outputs", .list(outputs)),
                ("spentByUs", int(plan.spentByUs)), ("sentToOthers", int(plan.sentToOthers)), ("fee", int(plan.fee)),
                ("feeVerified", .bool(plan.feeVerified)), ("vsize", .int(plan.virtualSize)),
                ("feeRate", plan.feeRate.map { .string(String(format: "%.2f", $0)) } ?? .null),
                ("warnings", .list(plan.warnings.map(Value.string))),
                ("refusals", .list(plan.refusals.map(Value.string))),
            ]))
    }
}

import Foundation
import WalletCrypto

// Signed messages for Bitcoin addresses (docs/bitcoin.md, "Messages"): BIP-322's simple
// signatures — a witness that spends a virtual transaction committing to the message — for
// P2WPKH and P2TR, and the legacy `signmessage` form (BIP-137's 65-byte recoverable signature)
// for P2PKH, which Bitcoin Core's `verifymessage` reads.

public enum BitcoinMessageError: WalletError, Equatable {
    case unsupportedAddress(String)
    case malformedSignature(String)

    public var id: String {
        switch self {
        case .unsupportedAddress: "bitcoin.message.address"
        case .malformedSignature: "bitcoin.message.signature"
        }
    }

    public var description: String {
        switch self {
        case .unsupportedAddress(let what): what
        case .malformedSignature(let what): "the signature: \(what)"
        }
    }
}

public enum BitcoinMessage {
    /// BIP-322's message hash: the BIP-340 tagged hash `BIP0322-signed-message` of the message.
    public static func bip322Hash(_ message: [UInt8]) -> [UInt8] { Hash.tagged("BIP0322-signed-message", message) }

    /// BIP-322's `to_spend`: spends nothing, commits to the message, pays `script` nothing.
    public static func toSpend(_ message: [UInt8], script: [UInt8]) -> BitcoinTransaction {
        BitcoinTransaction(
            version: 0,
            inputs: [
                TxInput(
                    previous: OutPoint(hash: [UInt8](repeating: 0, count: 32), index: 0xffff_ffff),
                    scriptSig: [0x00, 0x20] + bip322Hash(message), sequence: 0)
            ],
            outputs: [TxOutput(amount: 0, script: script)], lockTime: 0)
    }

    /// BIP-322's `to_sign`: spends `to_spend`'s output with `witness`, pays OP_RETURN nothing.
    public static func toSign(_ toSpend: BitcoinTransaction, witness: [[UInt8]] = []) -> BitcoinTransaction {
        BitcoinTransaction(
            version: 0,
            inputs: [TxInput(previous: OutPoint(hash: toSpend.txidHash, index: 0), sequence: 0, witness: witness)],
            outputs: [TxOutput(amount: 0, script: [0x6a])], lockTime: 0)
    }

    /// The unsigned `to_sign` as a PSBT whose one input a signer signs as any other (the previous
    /// transaction `to_spend` included, so its amount is proved).
    public static func psbt(_ message: [UInt8], script: [UInt8]) -> PSBT {
        let spend = toSpend(message, script: script)
        let sign = toSign(spend)
        return PSBT(
            version: 0, global: PSBTMap([PSBTRecord(type: 0x00, value: sign.legacySerialized)]),
            inputs: [
                PSBTMap([
                    PSBTRecord(type: PSBTInputType.nonWitnessUTXO, value: spend.serialized),
                    PSBTRecord(type: PSBTInputType.witnessUTXO, value: spend.outputs[0].serialized),
                ])
            ], outputs: [PSBTMap()])
    }

    /// The legacy message digest: SHA-256d of `\x18Bitcoin Signed Message:\n` ‖ compact size ‖ message.
    public static func legacyDigest(_ message: [UInt8]) -> [UInt8] {
        Hash.sha256d(
            BitcoinWriter.lengthPrefixed(Array("Bitcoin Signed Message:\n".utf8))
                + BitcoinWriter.lengthPrefixed(message))
    }

    /// BIP-137's signature: header 31 + recovery id (a compressed key's P2PKH address) ‖ r ‖ s, base64.
    public static func legacySignature(_ signature: RecoverableSignature) -> String {
        Data([31 + signature.recoveryID] + signature.signature.compact).base64EncodedString()
    }

    /// BIP-322's simple signature: the witness stack, serialised, base64.
    public static func simpleSignature(_ witness: [[UInt8]]) -> String {
        Data(PSBTFields.witnessValue(witness)).base64EncodedString()
    }

    /// Whether `signature` signs `message` for `address` on `network`: BIP-322 simple for P2WPKH
    /// and P2TR, the legacy form for P2PKH.
    public static func verify(
        address: String, message: [UInt8], signature: String, network: BitcoinNetwork
    ) throws -> Bool {
        let script = try network.script(of: address)
        var text = signature
        if text.hasPrefix("smp") { text.removeFirst(3) }  // the newer draft's prefix of a simple signature
        if text.hasPrefix("ful") {
            throw BitcoinMessageError.malformedSignature("full BIP-322 signatures are not read")
        }
        guard let raw = Data(base64Encoded: text).map(Array.init) else {
            throw BitcoinMessageError.malformedSignature("not base64")
        }
        guard !raw.isEmpty else { throw BitcoinMessageError.malformedSignature("empty") }
        switch ScriptTemplate(script) {
        case .p2pkh(let hash):
            guard raw.count == 65, (27...42).contains(raw[0]) else {
                throw BitcoinMessageError.malformedSignature("a legacy signature is 65 bytes with a header 27 to 42")
            }
            let recovery = (raw[0] - 27) & 3
            let compressed = raw[0] >= 31
            guard
                let sig = try? RecoverableSignature(
                    signature: try ECDSASignature(compact: Array(raw[1...])), recoveryID: recovery),
                let key = try? sig.recoverPublicKey(digest: legacyDigest(message))
            else { return false }
            return Hash.hash160(compressed ? key.compressed : key.uncompressed) == hash
        case .p2wpkh(let hash):
            guard let witness = try? PSBTFields.witness(raw), witness.count == 2, witness[0].count >= 9 else {
                return false
            }
            guard Hash.hash160(witness[1]) == hash, let key = try? PublicKey(bytes: witness[1]),
                witness[0].last == 0x01,
                let sig = try? ECDSASignature(der: Array(witness[0].dropLast()))
            else { return false }
            let spend = toSpend(message, script: script)
            let digest = Sighash.segwitV0(
                toSign(spend), index: 0, scriptCode: BitcoinScript.p2pkh(hash), amount: 0, type: SighashType.all)
            return Secp256k1.verify(sig, digest: digest, publicKey: key)
        case .p2tr(let outputKey):
            guard let witness = try? PSBTFields.witness(raw), witness.count == 1,
                witness[0].count == 64 || (witness[0].count == 65 && witness[0][64] != 0)
            else { return false }
            let type = witness[0].count == 65 ? UInt32(witness[0][64]) : SighashType.default
            let spend = toSpend(message, script: script)
            guard let digest = try? Sighash.taproot(toSign(spend), index: 0, spent: [spend.outputs[0]], type: type),
                let q = try? XOnlyPublicKey(bytes: outputKey)
            else { return false }
            return q.verifySchnorr(Array(witness[0].prefix(64)), message: digest)
        default:
            throw BitcoinMessageError.unsupportedAddress(
                "\(address): kcs signs and verifies messages for P2PKH (legacy), P2WPKH and P2TR addresses")
        }
    }
}

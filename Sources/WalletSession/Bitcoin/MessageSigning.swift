import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// Signing a message for a Bitcoin address (docs/bitcoin.md, "Messages"): BIP-322's virtual
// transaction is signed as a one-input PSBT by the same plan and signers as any PSBT (so the
// card signs it too, Taproot on a 4.0 card); the legacy form is one ECDSA signature of the
// message digest with its recovery id.

/// A signed message: the address, the signature (base64) and its form.
public struct SignedBitcoinMessage: Sendable {
    public let address: String
    public let signature: String
    /// `BIP-322 simple` or `legacy (BIP-137)`.
    public let form: String
    public let path: DerivationPath?
}

extension Session {
    /// Signs `message` with the key at `path` (or the lone key) as the address of `kind` (else the
    /// path's purpose: 44' legacy, 84' P2WPKH, 86' P2TR). At a terminal the message and the
    /// address are shown and asked about first.
    public func signBitcoinMessage(
        _ message: [UInt8], keys choice: BitcoinKeyChoice, path: DerivationPath?, kind given: BitcoinAddressKind?,
        chain: BitcoinChain, yes: Bool
    ) throws -> SignedBitcoinMessage {
        var wallet = try bitcoinWallet(choice)
        let key: PublicKey
        if let path {
            key = try wallet.keys.key(at: path)
        } else if let lone = wallet.keys.lone {
            key = lone
        } else {
            throw PSBTSigningError.noKey(
                name: wallet.keyName, kind: "an HD key, which signs a message only at a --path")
        }
        guard
            let kind = given ?? path.flatMap({ PSBT.addressKind(ofPath: $0) })
                ?? (wallet.keys.lone != nil ? .p2wpkh : nil),
            kind != .p2shP2wpkh
        else {
            throw BitcoinMessageError.unsupportedAddress(
                "messages are signed for P2PKH (44'), P2WPKH (84') and P2TR (86') addresses")
        }
        let script = try BitcoinScript.output(kind, publicKey: key)
        guard let address = chain.network.address(of: script) else {
            throw BitcoinMessageError.unsupportedAddress("no \(kind) address on \(chain)")
        }
        if let prompts, prompts.isInteractive, !yes {
            let shown = String(decoding: message, as: UTF8.self)
            try confirm(
                "Bitcoin message (\(kind == .p2pkh ? "legacy signmessage" : "BIP-322 simple"), \(chain.displayName))\n"
                    + "  message  \(shown)\n  address  \(address)\n  signed by \(wallet.device)\nSign it?", yes: false)
        }
        if kind == .p2pkh {
            let digest = BitcoinMessage.legacyDigest(message)
            let step = SigningStep(
                input: 0, algorithm: .ecdsa, sighash: digest, sighashType: 1, publicKey: key, path: path)
            let (_, compact) = try bitcoinSignature(step, wallet: wallet)
            guard
                let recoverable = try? RecoverableSignature.matching(
                    try ECDSASignature(compact: compact), digest: digest, publicKey: key)
            else { throw PSBTSigningError.badSignature(input: 0, reason: "the signature does not recover the key") }
            try recordMessage(wallet, digest: digest, compact: compact, address: address)
            return SignedBitcoinMessage(
                address: address, signature: BitcoinMessage.legacySignature(recoverable), form: "legacy (BIP-137)",
                path: path)
        }
        var psbt = BitcoinMessage.psbt(message, script: script)
        if let path, let fp = wallet.fingerprint {
            PSBT.addOrigin(
                &psbt.inputs[0], key: key, origin: KeyOrigin(fingerprint: fp, path: path), kind: kind, input: true)
        }
        let plan = try psbt.plan(keys: &wallet.keys, policy: PSBTPolicy(chain: chain))
        guard plan.refusals.isEmpty, let step = plan.steps.first else {
            throw PSBTSigningError.refused(plan.refusals + plan.inputs.flatMap(\.notes))
        }
        if case .card(let card) = wallet.source, !card.isVersion4, case .schnorr = step.algorithm {
            throw PSBTSigningError.taprootNeedsVersion4(input: 0)
        }
        let (value, compact) = try bitcoinSignature(step, wallet: wallet)
        psbt.add(value, for: step)
        psbt.finalize()
        guard let witness = psbt.inputs[0].finalScriptWitness else {
            throw PSBTSigningError.badSignature(input: 0, reason: "no witness was built")
        }
        try recordMessage(wallet, digest: step.sighash, compact: compact, address: address)
        return SignedBitcoinMessage(
            address: address, signature: BitcoinMessage.simpleSignature(witness), form: "BIP-322 simple", path: path)
    }

    func recordMessage(_ wallet: BitcoinWallet, digest: [UInt8], compact: [UInt8], address: String) throws {
        _ = try existingStore()?.recordSignature(
            NewHistoryEntry(
                keyName: wallet.keyName, kind: .bitcoin, digest: digest, signature: compact, signer: address,
                verified: true,
                keyID: wallet.keyRecord?.id))
    }
}

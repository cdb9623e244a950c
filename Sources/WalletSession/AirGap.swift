import CardProtocol
import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// Air-gapped signing (ERC-4527; docs/ur.md §5, docs/qr.md): a watch-only wallet (MetaMask's QR
// hardware wallet, Keystone's SDK) shows an `eth-sign-request`; kcs says what will be signed,
// checks that the request is for this key (master fingerprint, address), asks, signs with the
// active key — a software HD key or the card — at the request's path, and answers with an
// `eth-signature` that echoes the request id.

/// Every way an air-gapped request is refused.
public enum AirGapError: WalletError, Equatable {
    case otherMaster(request: String, key: String)
    case otherAddress(request: String, signer: String)
    case noHDKey(name: String)
    case noFingerprint
    case chainMismatch(request: Int, transaction: Int)
    case notATransaction(String)

    public var id: String {
        switch self {
        case .otherMaster: "airgap.otherMaster"
        case .otherAddress: "airgap.otherAddress"
        case .noHDKey: "airgap.noHDKey"
        case .noFingerprint: "airgap.noFingerprint"
        case .chainMismatch: "airgap.chainMismatch"
        case .notATransaction: "airgap.notATransaction"
        }
    }

    public var description: String {
        switch self {
        case .otherMaster(let request, let key):
            "this request is for the key with master fingerprint \(request), and the signing key's is \(key): nothing was signed"
        case .otherAddress(let request, let signer):
            "this request names the address \(request), and the key at its path is \(signer): nothing was signed"
        case .noHDKey(let name):
            "\(name) is not an HD key kcs can derive the request's path from: use an HD-MASTER or HD-CHILD key, or the card"
        case .noFingerprint: "the request does not say which master key it is for (no source fingerprint in its path)"
        case .chainMismatch(let request, let transaction):
            "the request says chain \(request) and its transaction chain \(transaction): nothing was signed"
        case .notATransaction(let why): "the request's transaction cannot be read: \(why)"
        }
    }
}

/// What an `eth-sign-request` asks to sign, shown before it is signed.
public struct AirGapRequest: Sendable {
    public let request: ETHSignRequest
    /// The 32-byte digest the signer signs.
    public let digest: [UInt8]
    public let kind: SignatureKind
    /// What a person reads before confirming: field and value.
    public let details: [(String, String)]
}

/// The answer to an `eth-sign-request`.
public struct AirGapSigned: Sendable {
    public let signed: Signed
    /// r ‖ s ‖ v with `v` as the data type wants it (EIP-155, 27/28, or the y parity).
    public let signature: [UInt8]
    public let response: ETHSignature
    /// The response as a single-part UR, upper case as a QR code carries it.
    public let ur: String
}

extension Session {
    /// The digest of a request and what it shows: the data type, chain, path, fingerprint,
    /// address and origin; for a transaction its recipient, value and the chain it names.
    public static func describe(_ r: ETHSignRequest) throws -> AirGapRequest {
        var details: [(String, String)] = [("data", String(describing: r.dataType))]
        let digest: [UInt8], kind: SignatureKind
        switch r.dataType {
        case .legacyTransaction, .typedTransaction:
            digest = Hash.keccak256(r.signData)
            kind = .transaction
            details += try transactionDetails(r)
        case .typedData:
            digest = try TypedData(json: r.signData).digest()
            kind = .typed
            details.append(("typed data", String(decoding: r.signData.prefix(200), as: UTF8.self)))
        case .personalMessage:
            digest = PersonalMessage.digest(r.signData)
            kind = .message
            let text = String(validating: r.signData, as: UTF8.self)
            details.append(("message", text.map { "\"\($0)\"" } ?? "0x" + Hex.encode(r.signData)))
        }
        if let c = r.chainID { details.append(("chain", String(c))) }
        details.append(("path", r.path.text))
        if let f = r.path.sourceFingerprint { details.append(("master", String(format: "%08x", f))) }
        if let a = r.address, let address = try? EthereumAddress(bytes: a) { details.append(("address", address.checksummed)) }
        if let o = r.origin { details.append(("origin", o)) }
        details.append(("digest", "0x" + Hex.encode(digest)))
        return AirGapRequest(request: r, digest: digest, kind: kind, details: details)
    }

    /// A transaction's recipient, value and chain, read from its RLP; the chain must be the request's.
    static func transactionDetails(_ r: ETHSignRequest) throws -> [(String, String)] {
        var body = r.signData
        var typed = false
        if r.dataType == .typedTransaction {
            guard let t = body.first, t == 1 || t == 2 else { throw AirGapError.notATransaction("type byte \(body.first ?? 0)") }
            typed = true
            body.removeFirst()
        }
        let items: [RLPItem]
        do { items = try RLP.decode(body).asList() } catch { throw AirGapError.notATransaction(error.description) }
        func bytes(_ i: Int) -> [UInt8]? { i < items.count ? (try? items[i].asBytes()) : nil }
        func number(_ i: Int) -> Int? { bytes(i).map { $0.reduce(0) { $0 << 8 | Int($1) } } }
        // Legacy: nonce, gasPrice, gas, to, value, data[, chainId, 0, 0]. 2930: chainId, nonce, gasPrice,
        // gas, to, … 1559: chainId, nonce, tip, maxFee, gas, to, value, ….
        let (toIndex, chainIndex): (Int, Int?) = !typed ? (3, items.count == 9 ? 6 : nil) : (r.signData.first == 1 ? 4 : 5, 0)
        var out: [(String, String)] = []
        if let to = bytes(toIndex) {
            out.append(("to", to.isEmpty ? "(contract creation)" : ((try? EthereumAddress(bytes: to).checksummed) ?? "0x" + Hex.encode(to))))
        }
        if let value = bytes(toIndex + 1) { out.append(("value (wei)", value.isEmpty ? "0" : "0x" + Hex.encode(value))) }
        if let data = bytes(toIndex + 2), !data.isEmpty { out.append(("call data", "0x" + Hex.encode(data.prefix(36)) + (data.count > 36 ? "…" : ""))) }
        if let i = chainIndex, let chain = number(i) {
            if let c = r.chainID, c != chain { throw AirGapError.chainMismatch(request: c, transaction: chain) }
            out.append(("transaction chain", String(chain)))
        }
        return out
    }

    /// `qr.sign`: shows the request, checks it is for the active key (its master fingerprint
    /// and, when named, the address at the path), asks (`yes` in a batch run), signs at the
    /// request's path with the card (a card key, logged in) or the software HD key, and answers.
    public func signAirGapped(_ r: ETHSignRequest, yes: Bool) throws -> AirGapSigned {
        let described = try Self.describe(r)
        guard let fingerprint = r.path.sourceFingerprint else { throw AirGapError.noFingerprint }
        guard let path = r.path.derivationPath else { throw URError.invalidPart("eth-sign-request: the path has a wildcard") }
        guard let name = activeKey else { throw KeyCommandError.noActiveKey }
        let record = try store().key(named: name)
        let signer: any Signer
        let expected: PublicKey
        if record.kind == .card {
            let card = try requireLoggedIn()
            try card.checkHolds(record)
            let master = try card.commands.exportKey(.derive(try CardKeyPath(source: .master, components: [])), kind: .publicKey).publicKey
            try Self.checkMaster(fingerprint, ExtendedKey.fingerprint(of: master.compressed))
            let cardPath = try CardKeyPath(source: .master, components: path.components)
            expected = try card.commands.exportKey(.derive(cardPath), kind: .publicKey).publicKey
            signer = try CardSigner(session: self, card: card, record: record, option: .derive(cardPath), derivedPath: path)
        } else {
            let store = try unlockedStore()
            let seed = try store.read { tx in try Self.masterSeed(of: record, tx)?.seed }
            guard let seed else { throw AirGapError.noHDKey(name: record.name) }
            let master = try ExtendedKey.master(seed: seed)
            try Self.checkMaster(fingerprint, master.fingerprint)
            guard let key = try master.derive(path).privateKey else { throw AirGapError.noHDKey(name: record.name) }
            expected = key.publicKey
            signer = GivenKeySigner(session: self, key: key, path: path)
        }
        let address = EthereumAddress(publicKey: expected).checksummed
        if let a = r.address, let named = try? EthereumAddress(bytes: a), named.checksummed != address {
            throw AirGapError.otherAddress(request: named.checksummed, signer: address)
        }
        try confirm("sign this for \(address)?\n" + described.details.map { "  \($0): \($1)" }.joined(separator: "\n") + "\n",
                    yes: yes)
        let chainID = r.chainID.map { UInt64(max(0, $0)) }
        let signed = try signer.sign(digest: described.digest, kind: described.kind, chainID: chainID)
        guard signed.verified, EthereumAddress(publicKey: signed.publicKey).checksummed == address else {
            throw KeyCommandError.cannotSign(name: record.name, kind: "the signature did not check out against \(address)")
        }
        let recovery = signed.signature.recoveryID
        let v: [UInt8]
        switch r.dataType {
        case .legacyTransaction:
            if let c = r.chainID, c > 0 {
                let value = UInt64(c) * 2 + 35 + UInt64(recovery)
                v = withUnsafeBytes(of: value.bigEndian, Array.init).drop { $0 == 0 }.map { $0 }
            } else {
                v = [27 + recovery]
            }
        case .typedTransaction: v = [recovery]
        case .typedData, .personalMessage: v = [27 + recovery]
        }
        let bytes = signed.signature.r + signed.signature.s + v
        let response = ETHSignature(requestID: r.requestID, signature: bytes, origin: "kcs")
        let ur = try UniformResource(type: "eth-signature", cbor: response.cbor.encoded).singlePart.uppercased()
        return AirGapSigned(signed: signed, signature: bytes, response: response, ur: ur)
    }

    /// `qr.sign`: the request in `sources` — UR text parts, or PNG files with its QR codes — signed.
    public func signAirGapped(sources: [String], yes: Bool) throws -> AirGapSigned {
        let scanned = sources.allSatisfy({ $0.lowercased().hasPrefix("ur:") })
            ? try Self.interpret(URDecoder.decodeParts(sources)) : try scanQR(sources)
        guard case .signRequest(let request) = scanned else {
            throw QRScanError.notAKey(holds: scanned.kind + " where an eth-sign-request was expected")
        }
        return try signAirGapped(request, yes: yes)
    }

    static func checkMaster(_ request: UInt32, _ key: UInt32) throws {
        guard request == key else {
            throw AirGapError.otherMaster(request: String(format: "%08x", request), key: String(format: "%08x", key))
        }
    }
}

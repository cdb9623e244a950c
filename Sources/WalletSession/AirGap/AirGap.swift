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
    case chainMismatch(request: String, payload: String)
    case notATransaction(String)
    case badChain(String)
    case noReplayProtection

    public var id: String {
        switch self {
        case .otherMaster: "airgap.otherMaster"
        case .otherAddress: "airgap.otherAddress"
        case .noHDKey: "airgap.noHDKey"
        case .noFingerprint: "airgap.noFingerprint"
        case .chainMismatch: "airgap.chainMismatch"
        case .notATransaction: "airgap.notATransaction"
        case .badChain: "airgap.badChain"
        case .noReplayProtection: "airgap.noReplayProtection"
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
        case .chainMismatch(let request, let payload):
            "the request says chain \(request) and what it asks to sign says \(payload): nothing was signed"
        case .notATransaction(let why): "the request's transaction cannot be read: \(why)"
        case .badChain(let given):
            "the request's chain id must be 1 to \(EthereumTransaction.maximumChainID) (EIP-2294), got \(given): nothing was signed"
        case .noReplayProtection:
            "the request's transaction has no chain id (pre-EIP-155): signed, it is valid on every chain."
                + " Nothing was signed; --allow-no-chain-id signs it all the same"
        }
    }
}

/// What an `eth-sign-request` asks to sign, shown before it is signed.
public struct AirGapRequest: Sendable {
    public let request: ETHSignRequest
    /// The 32-byte digest the signer signs.
    public let digest: [UInt8]
    public let kind: SignatureKind
    /// The chain a signature's `v` is computed for (a legacy transaction's, else the request's).
    public let chainID: UInt64?
    /// What a person reads before confirming (docs/signing-review.md), without the signer yet.
    public var review: SigningReview

    /// What is signed, as a signer may be shown it.
    public var payload: SigningPayload {
        switch request.dataType {
        case .legacyTransaction, .typedTransaction: .transaction(request.signData)
        case .typedData: .typed(request.signData)
        case .personalMessage: .message(request.signData)
        }
    }
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
    /// The digest of a request and its review: what it asks to sign (a transaction, typed data,
    /// a message: docs/signing-review.md), then the request's own path, master, address and
    /// origin. Refused before anything is shown: a chain id out of EIP-2294's range, a
    /// transaction that is not a whole type 0/1/2 transaction, a chain in the payload (the
    /// transaction's, the typed data's domain) other than the request's, and a transaction
    /// without a chain id unless `allowNoChainID`.
    public static func describe(
        _ r: ETHSignRequest, allowNoChainID: Bool = false,
        name: @escaping (EthereumAddress) -> String? = { _ in nil }
    ) throws -> AirGapRequest {
        var requestChain: UInt256?
        if let c = r.chainID {
            guard c >= 1, UInt64(c) <= EthereumTransaction.maximumChainID else { throw AirGapError.badChain(String(c)) }
            requestChain = UInt256(UInt64(c))
        }
        func sameChain(_ payload: UInt256?) throws {
            if let payload, let requestChain, payload != requestChain {
                throw AirGapError.chainMismatch(
                    request: requestChain.description, payload: EthereumChain.label(payload))
            }
        }
        var review: SigningReview
        let kind: SignatureKind
        var chainID = requestChain?.uint64
        switch r.dataType {
        case .legacyTransaction, .typedTransaction:
            let tx: EthereumTransaction
            do { tx = try EthereumTransaction.decodeUnsigned(r.signData) } catch {
                throw AirGapError.notATransaction(error.description)
            }
            if (r.dataType == .legacyTransaction) != (tx.type == .legacy) {
                throw AirGapError.notATransaction(
                    "the request says \(r.dataType) and its bytes are \(tx.type.description)")
            }
            if tx.chainID == nil && !allowNoChainID { throw AirGapError.noReplayProtection }
            try sameChain(tx.chainID)
            chainID = tx.chainID?.uint64 ?? chainID
            if tx.type == .legacy && tx.chainID == nil { chainID = nil }
            review = SigningReview.transaction(tx, name: name)
            kind = .transaction
        case .typedData:
            let typed = try TypedData(json: r.signData)
            if case .some(let domainChain) = typed.domain["chainId"] {
                let text: String? =
                    switch domainChain {
                    case .integer(let s): s
                    case .string(let s): (try? EthereumUnits.parse(s))?.description
                    default: nil
                    }
                guard let text, let id = UInt256(decimal: text) else {
                    throw AirGapError.chainMismatch(
                        request: requestChain?.description ?? "none", payload: "\(domainChain)")
                }
                try sameChain(id)
            }
            review = try SigningReview.typedData(typed, name: name)
            kind = .typed
        case .personalMessage:
            review = SigningReview.message(r.signData)
            kind = .message
        }
        if let requestChain, r.dataType == .personalMessage || r.dataType == .typedData {
            review.add("request chain", EthereumChain.label(requestChain))
        }
        review.add("request path", r.path.text)
        if let f = r.path.sourceFingerprint { review.add("master", String(format: "%08x", f)) }
        if let a = r.address, let address = try? EthereumAddress(bytes: a) {
            review.add("request address", address.checksummed)
        }
        if let o = r.origin { review.add("origin", o) }
        return AirGapRequest(request: r, digest: review.digest, kind: kind, chainID: chainID, review: review)
    }

    /// `qr.sign`: shows the request, checks it is for the active key (its master fingerprint
    /// and, when named, the address at the path), asks (`yes` in a batch run), signs at the
    /// request's path with the card (a card key, logged in) or the software HD key, and answers.
    public func signAirGapped(
        _ r: ETHSignRequest, yes: Bool, allowNoChainID: Bool = false, fullData: Bool = false
    ) throws -> AirGapSigned {
        var described = try Self.describe(r, allowNoChainID: allowNoChainID, name: try ownKeyNames())
        if fullData, r.dataType == .legacyTransaction || r.dataType == .typedTransaction,
            let tx = try? EthereumTransaction.decodeUnsigned(r.signData), !tx.data.isEmpty
        {
            described.review.add("call data (hex)", "0x" + Hex.encode(tx.data))
        }
        guard let fingerprint = r.path.sourceFingerprint else { throw AirGapError.noFingerprint }
        guard let path = r.path.derivationPath else {
            throw URError.invalidPart("eth-sign-request: the path has a wildcard")
        }
        let signer = try signer(for: SignerChoice(place: .masterPath(path)))
        guard let record = signer.keyRecord else { throw KeyCommandError.noActiveKey }
        guard let master = try signer.masterFingerprint() else { throw AirGapError.noHDKey(name: record.name) }
        try Self.checkMaster(fingerprint, master)
        let expected = try signer.publicKey()
        let address = EthereumAddress(publicKey: expected).checksummed
        if let a = r.address, let named = try? EthereumAddress(bytes: a), named.checksummed != address {
            throw AirGapError.otherAddress(request: named.checksummed, signer: address)
        }
        described.review.addSigner(
            address: address, keyName: record.name, path: path.description,
            device: Self.signingDevice(record))
        try confirm(described.review.rendered() + "\nSign it?", yes: yes)
        let chainID = described.chainID
        // The answer is made and checked before the signature is recorded (Signer's `finish`).
        var answer: (bytes: [UInt8], response: ETHSignature, ur: String)?
        let request = SigningRequest(
            digest: described.digest, payload: described.payload, kind: described.kind, chainID: chainID)
        let signed = try sign(request, with: signer) { signed in
            answer = try Self.answer(r, signed: signed, chainID: chainID, address: address, keyName: record.name)
        }
        guard let answer else { throw KeyCommandError.cannotSign(name: record.name, kind: "no answer was made") }
        return AirGapSigned(signed: signed, signature: answer.bytes, response: answer.response, ur: answer.ur)
    }

    /// The `eth-signature` answering `r`, from a signature checked against `address`: r ‖ s ‖ v by the request's v rule.
    static func answer(
        _ r: ETHSignRequest, signed: Signed, chainID: UInt64?, address: String,
        keyName: String
    ) throws -> (bytes: [UInt8], response: ETHSignature, ur: String) {
        guard signed.verified, EthereumAddress(publicKey: signed.publicKey).checksummed == address else {
            throw KeyCommandError.cannotSign(name: keyName, kind: "the signature did not check out against \(address)")
        }
        let recovery = signed.signature.recoveryID
        let v: [UInt8]
        switch r.dataType {
        case .legacyTransaction:
            // EIP-155: chainId·2 + 35 + parity; describe bounded the chain id (EIP-2294), so it fits 64 bits.
            if let c = chainID {
                let (twice, o1) = c.multipliedReportingOverflow(by: 2)
                let (value, o2) = twice.addingReportingOverflow(35 + UInt64(recovery))
                guard !o1, !o2 else { throw AirGapError.badChain(String(c)) }
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
        return (bytes, response, ur)
    }

    /// `qr.sign`: the request in `sources` — UR text parts, or PNG files with its QR codes — signed.
    public func signAirGapped(
        sources: [String], yes: Bool, allowNoChainID: Bool = false, fullData: Bool = false
    ) throws -> AirGapSigned {
        let scanned =
            sources.allSatisfy({ $0.lowercased().hasPrefix("ur:") })
            ? try Self.interpret(URDecoder.decodeParts(sources)) : try scanQR(sources)
        guard case .signRequest(let request) = scanned else {
            throw QRScanError.notAKey(holds: scanned.kind + " where an eth-sign-request was expected")
        }
        return try signAirGapped(request, yes: yes, allowNoChainID: allowNoChainID, fullData: fullData)
    }

    static func checkMaster(_ request: UInt32, _ key: UInt32) throws {
        guard request == key else {
            throw AirGapError.otherMaster(request: String(format: "%08x", request), key: String(format: "%08x", key))
        }
    }
}

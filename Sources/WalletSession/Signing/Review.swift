import CardProtocol
import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// The review of a signature (docs/signing-review.md): what is signed, by whom, and the digest,
// one renderer (`SigningReview`) for `sign … --dry-run`, `qr.sign`'s question and the
// co-signer's. The session adds what the core cannot know: which addresses are the person's
// own keys, and what signs.

extension Session {
    /// The name of the stored key with an address, for a review's recipient and address
    /// fields: "0x35… (your key savings)". No store, no names (nothing is created for it).
    public func ownKeyNames() throws -> (EthereumAddress) -> String? {
        guard let store = existingStore() else { return { _ in nil } }
        var names: [String: String] = [:]
        for record in try store.keys(includeRetired: false) {
            guard let address = record.address?.lowercased(), names[address] == nil else { continue }
            names[address] = record.name
        }
        return { names[$0.checksummed.lowercased()] }
    }

    /// What signs with `record`, in words: the card, a co-signer, a software key.
    public static func signingDevice(_ record: KeyRecord) -> String {
        switch record.storage {
        case .card(let uid): "the Keycard \(uid.prefix(8))"
        case .twoParty(let peer): "this console and the co-signer \(peer) (two-party key)"
        case .software, .watch: "the software key \(record.name), in this store"
        }
    }

    /// The review of `payload` (what a `Signer` is asked to sign): a transaction, typed data or
    /// a message decoded and described; a bare digest flagged as blind. `name` names the
    /// person's own addresses (`ownKeyNames`).
    public static func review(
        _ payload: SigningPayload, digest: [UInt8], fullData: Bool = false,
        name: @escaping (EthereumAddress) -> String?, delegates: DelegateList = .shipped
    ) throws -> SigningReview {
        switch payload {
        case .digest:
            return SigningReview.rawDigest(digest)
        case .message(let m):
            return SigningReview.message(m)
        case .typed(let json):
            return try SigningReview.typedData(try TypedData(json: json), name: name)
        case .transaction(let bytes):
            return SigningReview.transaction(
                try EthereumTransaction.decodeUnsigned(bytes), name: name, fullData: fullData, delegates: delegates)
        case .authorization(let preimage):
            return SigningReview.authorization(try EIP7702Authorization.decodePreimage(preimage), delegates: delegates)
        }
    }
}

/// Who would sign, as a review names it: found from the store alone, without the card.
public struct SignerSummary: Sendable {
    public let address: String
    public let keyName: String?
    public let path: String?
    public let device: String

    public init(address: String, keyName: String?, path: String?, device: String) {
        self.address = address
        self.keyName = keyName
        self.path = path
        self.device = device
    }
}

extension SigningReview {
    /// Adds `signer`'s lines (nothing when it is not known).
    public mutating func addSigner(_ signer: SignerSummary?) {
        guard let signer else { return }
        addSigner(address: signer.address, keyName: signer.keyName, path: signer.path, device: signer.device)
    }
}

extension Session {
    /// The key `choice` names (a given key, a stored key, else the active key) as a review names
    /// it, found from the store alone, without the card; nil when there is none or its address is
    /// not recorded (a `--dry-run` needs no signer).
    public func signerSummary(_ choice: SignerChoice) -> SignerSummary? {
        let name: String?
        switch choice.key {
        case .given(let key, let path):
            return SignerSummary(
                address: EthereumAddress(publicKey: key.publicKey).checksummed, keyName: nil,
                path: path?.description, device: "the key given with --key")
        case .stored(let n): name = n
        case .active: name = activeKey
        }
        guard let name, let store = existingStore(), let record = try? store.key(named: name),
            let address = record.address
        else { return nil }
        return SignerSummary(
            address: address, keyName: record.name, path: record.path?.description,
            device: Self.signingDevice(record))
    }
}

extension Session {
    /// The ERC-7730 descriptor in `path` with the file its `includes` names (relative to it, one
    /// level), each at most 1 MiB (docs/eth-signing.md, "ERC-7730").
    public func clearSigningDescriptor(_ path: String) throws -> ClearSigningDescriptor {
        func read(_ p: String) throws -> [UInt8] {
            guard case .bytes(let data) = BoundedFile.read(p, maximumBytes: ClearSigningDescriptor.maximumBytes) else {
                throw ClearSigningError.malformed(
                    file: p, reason: "expected a readable file of at most \(ClearSigningDescriptor.maximumBytes) bytes")
            }
            return data
        }
        let json = try read(path)
        let included = try ClearSigningDescriptor.includes(json).map { name in
            try read(((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name))
        }
        return try ClearSigningDescriptor(json: json, file: path, included: included)
    }
}

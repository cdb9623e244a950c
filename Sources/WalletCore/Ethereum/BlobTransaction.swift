// A blob transaction's network form (docs/eth-signing.md, "Blob transactions"). What is signed
// and hashed is the canonical 14-field transaction; nodes pass it around wrapped with its sidecar:
//   EIP-4844 (v0)  0x03 ‖ rlp([tx_payload_body, blobs, commitments, proofs])        one proof per blob
//   EIP-7594 (v1)  0x03 ‖ rlp([tx_payload_body, 1, blobs, commitments, cell_proofs]) 128 per blob
// The body is read and checked; each commitment is checked against its versioned hash
// (0x01 ‖ sha256(commitment)[1:]); the KZG proofs are not verified (kcs has no KZG library).

/// What a network-form blob transaction carried beside its body.
public struct BlobSidecar: Sendable, Hashable {
    /// 0: EIP-4844's wrapper; 1: EIP-7594's (cell proofs).
    public let version: Int
    public let blobs: Int
    public let commitments: [[UInt8]]
    public let proofs: Int

    /// The size of one blob: 4096 field elements of 32 bytes.
    public static let blobSize = 131_072
    /// EIP-7594's cell proofs per blob (CELLS_PER_EXT_BLOB).
    public static let cellProofsPerBlob = 128

    /// KZG's versioned hash of a commitment: 0x01 ‖ sha256(commitment)[1:].
    public static func versionedHash(_ commitment: [UInt8]) -> [UInt8] {
        [0x01] + Hash.sha256(commitment).dropFirst()
    }
}

extension SignedEthereumTransaction {
    /// `decodeNetwork` of hex text (`0x` optional).
    public static func decodeNetwork(hex: String) throws(EthereumError) -> (SignedEthereumTransaction, BlobSidecar?) {
        let bytes: [UInt8]
        do { bytes = try Hex.decode(hex.trimmingSpaces) } catch { throw .txBadHex(reason: error.description) }
        return try decodeNetwork(bytes)
    }

    /// Decodes a raw transaction as a node may be sent it: any canonical transaction, or a blob
    /// transaction in either network form, whose body is returned with what its sidecar held.
    /// The sidecar must match the body: one blob, commitment and versioned hash per blob, each
    /// hash that of its commitment, and the proofs the wrapper's version requires.
    public static func decodeNetwork(_ raw: [UInt8]) throws(EthereumError) -> (SignedEthereumTransaction, BlobSidecar?)
    {
        let (type, items) = try envelope(raw)
        guard type == .blob, case .list(let body)? = items.first else { return (try decode(raw), nil) }
        let version: Int
        let rest: ArraySlice<RLPItem>
        if items.count == 4 {
            version = 0
            rest = items[1...]
        } else if items.count == 5, case .bytes([0x01]) = items[1] {
            version = 1
            rest = items[2...]
        } else {
            throw .txBadField(
                field: "network form",
                reason: "must be [body, blobs, commitments, proofs] (EIP-4844) or [body, 1, blobs, commitments,"
                    + " cell_proofs] (EIP-7594), got \(items.count) items")
        }
        let stx = try decode([0x03] + RLP.encode(.list(body)))
        func strings(_ item: RLPItem, _ name: String, size: Int) throws(EthereumError) -> [[UInt8]] {
            guard case .list(let list) = item else {
                throw .txBadField(field: name, reason: "must be a list, got a byte string")
            }
            var out: [[UInt8]] = []
            for (i, entry) in list.enumerated() {
                guard case .bytes(let b) = entry, b.count == size else {
                    throw .txBadField(field: "\(name)[\(i)]", reason: "must be \(size) bytes")
                }
                out.append(b)
            }
            return out
        }
        let parts = Array(rest)
        let blobs = try strings(parts[0], "blobs", size: BlobSidecar.blobSize)
        let commitments = try strings(parts[1], "commitments", size: 48)
        let proofs = try strings(parts[2], version == 0 ? "proofs" : "cell_proofs", size: 48)
        let hashes = stx.transaction.blobVersionedHashes
        guard blobs.count == hashes.count, commitments.count == hashes.count else {
            throw .txBadField(
                field: "sidecar",
                reason: "must hold one blob and one commitment per versioned hash (\(hashes.count)), got"
                    + " \(blobs.count) blobs and \(commitments.count) commitments")
        }
        let perBlob = version == 0 ? 1 : BlobSidecar.cellProofsPerBlob
        guard proofs.count == perBlob * blobs.count else {
            throw .txBadField(
                field: "sidecar", reason: "must hold \(perBlob * blobs.count) proofs, got \(proofs.count)")
        }
        for (i, c) in commitments.enumerated() where BlobSidecar.versionedHash(c) != hashes[i] {
            throw .txBadField(
                field: "commitments[\(i)]",
                reason: "does not hash to blobVersionedHashes[\(i)] (0x01 ‖ sha256(commitment)[1:])")
        }
        return (stx, BlobSidecar(version: version, blobs: blobs.count, commitments: commitments, proofs: proofs.count))
    }
}

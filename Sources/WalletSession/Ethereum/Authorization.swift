import EthRPC
import Foundation
import KCSErrors
import WalletCore
import WalletCrypto
import WalletStore

// EIP-7702 authorizations (docs/eth-signing.md): `sign auth` fills the chain and the nonce from a
// node when they are not given, refuses chain id 0 without `--any-chain`, asks twice (or, in
// batch, refuses) for a delegate not on the allowlist, and signs the digest with any signer;
// `sign tx` checks the authorizations of a set-code transaction before its sender signs it.

/// What `sign auth` was asked.
public struct AuthorizationRequest: Sendable {
    public var delegate: EthereumAddress
    /// nil: the node's chain.
    public var chainID: UInt256?
    /// Chain id 0: valid on every chain (`--any-chain`).
    public var anyChain: Bool
    /// nil: the authority's nonce from the node (+ 1 when `selfSponsored`).
    public var nonce: UInt64?
    /// The authority sends the set-code transaction itself (its nonce is counted first).
    public var selfSponsored: Bool

    public init(
        delegate: EthereumAddress, chainID: UInt256? = nil, anyChain: Bool = false, nonce: UInt64? = nil,
        selfSponsored: Bool = false
    ) {
        self.delegate = delegate
        self.chainID = chainID
        self.anyChain = anyChain
        self.nonce = nonce
        self.selfSponsored = selfSponsored
    }
}

/// An authorization ready to sign: its review, and whether the allowlist lets it be signed
/// without a second question (`prepareAuthorization`).
public struct PreparedAuthorization {
    public let authorization: EIP7702Authorization
    public let review: SigningReview
    public let onAllowlist: Bool
}

/// Why an authorization, or a set-code transaction's authorization list, was refused.
public enum AuthorizationError: WalletError, Equatable {
    /// Chain id 0 without `--any-chain`.
    case anyChainRefused
    /// Neither a chain nor a node to ask.
    case needsChain
    /// Neither a nonce nor a node to ask.
    case needsNonce
    /// A delegate not on the allowlist, in batch, without `--allow-unknown-delegate`.
    case unknownDelegate(delegate: String, chain: String)
    /// The tuple of the transaction's own sender has a nonce other than the transaction's + 1.
    case selfSponsoredNonce(index: Int, given: UInt64, expected: String)
    /// A tuple's nonce is not its authority's current nonce (read from the node).
    case sponsoredNonce(index: Int, authority: String, given: UInt64, current: String)
    /// A tuple for another chain than the transaction's.
    case wrongChain(index: Int, chain: String, transaction: String)
    /// A tuple whose signature recovers no authority.
    case noAuthority(index: Int)

    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .anyChainRefused: "eth.auth.anyChain"
        case .needsChain: "eth.auth.needsChain"
        case .needsNonce: "eth.auth.needsNonce"
        case .unknownDelegate: "eth.auth.unknownDelegate"
        case .selfSponsoredNonce: "eth.auth.selfSponsoredNonce"
        case .sponsoredNonce: "eth.auth.sponsoredNonce"
        case .wrongChain: "eth.auth.wrongChain"
        case .noAuthority: "eth.auth.noAuthority"
        }
    }

    public var description: String {
        switch self {
        case .anyChainRefused:
            "chain id 0 makes the authorization valid on every EVM chain, where the delegate's address may hold other "
                + "code; give --chain N, or --any-chain to sign it for every chain all the same"
        case .needsChain:
            "expected --chain N (or --any-chain), or a node (--rpc) to read the chain from, got neither"
        case .needsNonce:
            "expected --nonce N (the authority's account nonce when the tuple is processed), or a node (--rpc) to read "
                + "it from, got neither"
        case .unknownDelegate(let delegate, let chain):
            "delegate \(delegate) is not on the allowlist for \(chain): its code would run as the account with full "
                + "control; add it to delegates.json in the kcs home, or give --allow-unknown-delegate; nothing was signed"
        case .selfSponsoredNonce(let index, let given, let expected):
            "authorizationList[\(index)] is the sender's own, so its nonce must be the transaction's nonce + 1 = "
                + "\(expected) (the transaction's nonce is counted first), got \(given): the node would skip it "
                + "silently; nothing was signed"
        case .sponsoredNonce(let index, let authority, let given, let current):
            "authorizationList[\(index)]'s authority \(authority) has nonce \(current) at the node, not \(given): the "
                + "node would skip the tuple silently; nothing was signed"
        case .wrongChain(let index, let chain, let transaction):
            "authorizationList[\(index)] is for chain \(chain), not the transaction's chain \(transaction) (or 0): the "
                + "node would skip it silently; nothing was signed"
        case .noAuthority(let index):
            "authorizationList[\(index)]'s signature recovers no authority (or is high-S): the node would skip it; "
                + "nothing was signed"
        }
    }
}

extension Session {
    /// The file of the person's own delegates, in the kcs home.
    public static let delegatesFileName = "delegates.json"

    /// The delegates kcs ships, and the person's own from `delegates.json` in the home (1 MiB at most).
    public func delegateList() throws -> DelegateList {
        var list = DelegateList.shipped
        guard let home else { return list }
        let path = (home as NSString).appendingPathComponent(Self.delegatesFileName)
        guard FileManager.default.fileExists(atPath: path) else { return list }
        switch BoundedFile.read(path, maximumBytes: DelegateList.maximumFileBytes) {
        case .bytes(let data): try list.add(json: data, file: path)
        case .tooLarge(let size):
            throw DelegateListError.malformed(
                file: path, reason: "expected at most \(DelegateList.maximumFileBytes) bytes, got \(size)")
        case .unreadable: throw DelegateListError.malformed(file: path, reason: "expected a readable regular file")
        }
        return list
    }

    /// The authorization `request` asks for, with what it lacks filled from `node` (the chain; the
    /// nonce of `authority`, + 1 when self-sponsored), and its review (with the authority's
    /// current code when there is a node). Chain id 0 is refused unless asked for.
    public func prepareAuthorization(
        _ request: AuthorizationRequest, authority: () throws -> EthereumAddress, node: EthereumNode?
    ) throws -> PreparedAuthorization {
        if request.chainID?.isZero == true && !request.anyChain { throw AuthorizationError.anyChainRefused }
        let chainID: UInt256
        if request.anyChain {
            chainID = .zero
        } else if let given = request.chainID {
            chainID = given
        } else {
            guard let node else { throw AuthorizationError.needsChain }
            chainID = try node.chainID()
        }
        var nonce = request.nonce
        var code: [UInt8]?
        if let node {
            // The nonce needs the authority; the current code is shown when the authority is known.
            let who = nonce == nil ? try authority() : try? authority()
            if let who, nonce == nil {
                let current = try node.transactionCount(of: who, block: "pending")
                nonce = (current.uint64 ?? .max) &+ (request.selfSponsored ? 1 : 0)
            }
            if let who { code = try node.code(of: who) }
        }
        guard let nonce else { throw AuthorizationError.needsNonce }
        let auth = EIP7702Authorization(chainID: chainID, delegate: request.delegate, nonce: nonce)
        try auth.validate()
        let delegates = try delegateList()
        let review = SigningReview.authorization(
            auth, delegates: delegates, currentCode: code,
            selfSponsored: request.nonce == nil ? request.selfSponsored : nil)
        return PreparedAuthorization(authorization: auth, review: review, onAllowlist: delegates.allows(auth))
    }

    /// Signs `auth` with `signer` after the delegate check: a revocation or a delegate on the
    /// allowlist signs at once; another is refused in batch unless `allowUnknownDelegate`, and
    /// at a terminal asked twice after the review, naming the risk.
    public func signAuthorization(
        _ prepared: PreparedAuthorization, signer: any Signer, choice: SignerChoice, allowUnknownDelegate: Bool
    ) throws -> (SignedAuthorization, Signed) {
        let auth = prepared.authorization
        if !prepared.onAllowlist {
            let chain = auth.isAnyChain ? "every chain" : EthereumChain.label(auth.chainID)
            if let prompts, prompts.isInteractive {
                try confirm(prepared.review.rendered() + "\nThe delegate is not on the allowlist. Sign it?", yes: false)
                try confirm(
                    "Its code will control \(try EthereumAddress(publicKey: signer.publicKey()).checksummed) on "
                        + "\(chain), with everything the account holds. Really sign?", yes: false)
            } else if !allowUnknownDelegate {
                throw AuthorizationError.unknownDelegate(delegate: auth.delegate.checksummed, chain: chain)
            }
        }
        let request = SigningRequest(
            digest: auth.digest, payload: .authorization(auth.preimage), kind: .authorization,
            chainID: auth.chainID.uint64, signer: choice)
        let signed = try sign(request, with: signer)
        return (auth.signed(with: signed.signature.signature, yParity: signed.signature.recoveryID), signed)
    }

    /// A set-code transaction's tuples, checked before `sender` signs it: each recovers an
    /// authority, is for the transaction's chain or every chain, and — the sender's own — has the
    /// transaction's nonce + 1; with a node, another authority's nonce is its current one.
    public func checkAuthorizations(of tx: EthereumTransaction, sender: EthereumAddress, node: EthereumNode?) throws {
        // Each valid tuple increments its authority's nonce: a second tuple of one authority has the next.
        var next: [EthereumAddress: UInt256] = [:]
        for (i, tuple) in tx.authorizationList.enumerated() {
            let auth = tuple.authorization
            guard let authority = try? tuple.authority() else { throw AuthorizationError.noAuthority(index: i) }
            if !auth.isAnyChain && auth.chainID != (tx.chainID ?? .zero) {
                throw AuthorizationError.wrongChain(
                    index: i, chain: auth.chainID.description, transaction: (tx.chainID ?? .zero).description)
            }
            let expected: UInt256
            if let n = next[authority] {
                expected = n
            } else if authority == sender {
                expected = tx.nonce.addingReportingOverflow(UInt256(1)).0
            } else if let node {
                expected = try node.transactionCount(of: authority, block: "pending")
            } else {
                continue
            }
            if UInt256(auth.nonce) != expected {
                if authority == sender && next[authority] == nil {
                    throw AuthorizationError.selfSponsoredNonce(
                        index: i, given: auth.nonce, expected: expected.description)
                }
                throw AuthorizationError.sponsoredNonce(
                    index: i, authority: authority.checksummed, given: auth.nonce, current: expected.description)
            }
            next[authority] = expected.addingReportingOverflow(UInt256(1)).0
        }
    }
}

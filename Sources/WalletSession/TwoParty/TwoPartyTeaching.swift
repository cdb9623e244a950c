// The teaching text of `mpc.explain on` (docs/two-party.md).
import Foundation
import KCSErrors
import MPCLink
import WalletCore
import WalletCrypto
import WalletMPC
import WalletStore

/// The teaching lines of `mpc.explain on`: what each message of a key generation and of a
/// signature carries, and why (docs/two-party.md).
public enum TwoPartyTeaching {
    public static let overview = """
        A two-party key is a secp256k1 key no machine holds. The console (P1) keeps a share x1 and a
        Paillier key; the co-signer (P2) keeps a share x2. The key is x = x1 + x2, its public key
        Q = x1·G + x2·G; each side proves what it sends, so neither can steer Q or learn the other's share.
        Key types: ecdsa (one joint key, signing at m), hd-master (a joint key and a jointly chosen chain
        code: a BIP-32 root whose xpub any wallet can watch), and its HD-CHILD keys at non-hardened paths
        (the co-signer adds the public BIP-32 tweak to its share; hardened steps would need the whole key).
        Signing: both pick nonces (k1, k2) with proofs; the co-signer computes one Paillier ciphertext of
        the signature's core under P1's key, with a proof that it did so honestly; P1 checks the proof,
        decrypts, finishes an ordinary ECDSA signature and checks it against the joint key.
        """

    static let dkg: [Int: String] = [
        1:
            "P1 → P2: a commitment to Q1 = x1·G and to its half of the chain code, its Paillier modulus N, and c_key = Enc(x1) — the co-signer will compute with x1 without ever seeing it",
        2:
            "P2 → P1: Q2 = x2·G with a proof that it knows x2, and its half of the chain code — chosen before it saw Q1, so neither side can steer Q",
        3:
            "P1 → P2: opens the commitment and proves that it knows x1, that N is a valid Paillier modulus (ΠVP), that c_key encrypts the x1 of Q1 (ΠPDL) and that x1 is in range (ΠPE, ΠRP)",
        4: "P2 → P1: confirms the same transcript; the joint key is Q = Q1 + Q2, and x = x1 + x2 exists nowhere",
    ]

    static let sign: [Int: String] = [
        0:
            "P1 → P2: what to sign — the payload itself, so the co-signer computes the digest on its own — the key and the path",
        1: "P2 → P1: accepted (after showing it, and asking when it is set to ask); a fresh session id",
        2: "P1 → P2: a commitment to R1 = k1·G — so the co-signer cannot choose its R2 after seeing R1",
        3: "P2 → P1: R2 = k2·G with a proof that it knows k2",
        4: "P1 → P2: opens R1 with its proof; both now know R = k1·k2·G and r = x(R)",
        5:
            "P2 → P1: one Paillier ciphertext of k2⁻¹·(m + r·x) less P1's part, computed under P1's key, with a proof that it was computed honestly (ΠSIGN) — checked before anything is decrypted",
        6: "P1 → P2: the signature (r, s), s = k1⁻¹·Dec(c), checked against the joint key first",
    ]

    /// The lines to show before frame `step` leaves: the one received just before it, then its own.
    static func before(_ table: [Int: String], step: Int, first: Int) -> [String] {
        (step > first ? [table[step - 1]] : []).compactMap { $0 } + [table[step]].compactMap { $0 }
    }
}

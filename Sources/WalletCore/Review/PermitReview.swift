// Token permits in typed data (docs/signing-review.md, "Permits"): an EIP-2612 `Permit` and
// Uniswap Permit2's `PermitSingle`, `PermitBatch`, `PermitTransferFrom` and
// `PermitBatchTransferFrom` let a spender move tokens with no transaction from the owner, so the
// review says who may take what until when — the amount flagged when it is unlimited, the
// deadline as a date.
import Foundation

extension SigningReview {
    /// The permit types kcs summarises.
    static let permitTypes: Set<String> = [
        "Permit", "PermitSingle", "PermitBatch", "PermitTransferFrom", "PermitBatchTransferFrom",
    ]

    /// Adds a permit's summary and warnings when `typed` is one (else nothing).
    mutating func addPermit(_ typed: TypedData) {
        guard Self.permitTypes.contains(typed.primaryType), case .object(let m) = typed.message else { return }
        let spender = Self.addressText(m["spender"])
        // (token or nil for EIP-2612's verifying contract, amount, per-token expiry)
        var grants: [(token: String?, amount: UInt256?, until: UInt256?)] = []
        switch typed.primaryType {
        case "Permit":
            var token: String?
            if case .object(let d) = typed.domain { token = Self.addressText(d["verifyingContract"]) }
            grants.append((token, Self.number(m["value"]), nil))
        case "PermitSingle", "PermitBatch":
            let details: [TypedDataValue] =
                if case .array(let a)? = m["details"] { a } else if let d = m["details"] { [d] } else { [] }
            for case .object(let d) in details {
                grants.append((Self.addressText(d["token"]), Self.number(d["amount"]), Self.number(d["expiration"])))
            }
        default:
            let permitted: [TypedDataValue] =
                if case .array(let a)? = m["permitted"] { a } else if let p = m["permitted"] { [p] } else { [] }
            for case .object(let p) in permitted {
                grants.append((Self.addressText(p["token"]), Self.number(p["amount"]), nil))
            }
        }
        let deadline = Self.number(m["deadline"] ?? m["sigDeadline"])
        add("permit", "\(typed.primaryType): \(spender ?? "?") may take tokens without another signature")
        for grant in grants {
            let amount = grant.amount.map { Self.permitAmount($0) } ?? "?"
            var text = "\(amount) of token \(grant.token ?? "?")"
            if let until = grant.until { text += ", allowance until \(Self.date(until))" }
            add("allows", text, depth: 1)
            if let a = grant.amount, a >= CallData.unlimited {
                warnings.append(
                    "unlimited permit: \(spender ?? "the spender") may take every token \(grant.token ?? "") you hold,"
                        + " now and later, without asking again")
            }
        }
        if let deadline { add("signature valid until", Self.date(deadline), depth: 1) }
    }

    static func permitAmount(_ a: UInt256) -> String {
        a >= CallData.unlimited ? "\(a) (unlimited)" : "\(a) token units"
    }

    static func number(_ v: TypedDataValue?) -> UInt256? {
        switch v {
        case .integer(let s)?, .string(let s)?: try? EthereumUnits.parse(s)
        default: nil
        }
    }

    static func addressText(_ v: TypedDataValue?) -> String? {
        guard case .string(let s)? = v, let a = try? EthereumAddress(s) else { return nil }
        return a.checksummed
    }

    /// Seconds since the epoch as `2026-12-02 10:00:00 UTC`; past year 9999 `never (N)`.
    static func date(_ seconds: UInt256) -> String {
        guard let s = seconds.uint64, s < 253_402_300_800 else { return "never (\(seconds))" }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(s)))
    }
}

// What a person reads before a signature (docs/signing-review.md): one value built from what
// is about to be signed — a transaction, typed data, a message, a raw digest — and the signer,
// rendered the same way at every place a signature is asked for: `sign … --dry-run`, the
// `[y/N]` of `qr.sign`, the co-signer's prompt. Everything in it that came from a request is
// escaped when it is rendered (`TerminalText`), so a request cannot draw on the screen.
import KCSErrors

/// The names ERC-8213 gives the digests a person compares across devices, used verbatim
/// (docs/signing-review.md, "Digests by name"). A personal-sign hash has no ERC-8213 name: kcs
/// calls it `EIP-191 digest`, its own label.
public enum Digest {
    /// keccak256("\x19\x01" ‖ domainSeparator ‖ hashStruct(message)): what typed data signs.
    public static let eip712 = "EIP-712 Digest"
    /// hashStruct(eip712Domain), the domain separator.
    public static let domain = "Domain Hash"
    /// hashStruct(message).
    public static let message = "Message Hash"
    /// keccak256(uint256(len(calldata)) ‖ calldata), shown for every transaction with call data.
    public static let calldata = "Calldata Digest"
}

/// A readable account of one signature about to be made.
public struct SigningReview: Sendable, Equatable {
    /// One labelled value; `depth` nests it under the line before (typed-data structs).
    public struct Line: Sendable, Equatable {
        public let label: String
        public let value: String
        public let depth: Int

        public init(_ label: String, _ value: String, depth: Int = 0) {
            self.label = label
            self.value = value
            self.depth = depth
        }
    }

    /// What is signed, in a few words: `EIP-1559 transaction`, `EIP-712 typed data`, ….
    public var title: String
    public var lines: [Line]
    /// What a person must not miss: an unlimited approval, a fee far above the usual, a
    /// transaction valid on every chain, a 32-byte message. Rendered first and last.
    public var warnings: [String]
    /// The 32-byte digest the signer signs.
    public var digest: [UInt8]
    /// What the digest is called for this kind of payload (`signing hash`, `EIP-712 Digest`, …).
    public var digestName: String

    public init(title: String, lines: [Line] = [], warnings: [String] = [], digest: [UInt8], digestName: String) {
        self.title = title
        self.lines = lines
        self.warnings = warnings
        self.digest = digest
        self.digestName = digestName
    }

    public mutating func add(_ label: String, _ value: String, depth: Int = 0) {
        lines.append(Line(label, value, depth: depth))
    }

    /// The signer's lines, added once the signer is known: its address (with the key's name),
    /// the path, and what signs (a software key, the card, a co-signer).
    public mutating func addSigner(address: String, keyName: String?, path: String?, device: String) {
        add("signer", address + (keyName.map { " (\($0))" } ?? ""))
        if let path { add("path", path) }
        add("signed by", device)
    }

    /// The review as text lines, `width` columns wide at most: the title, warnings, each line
    /// as `label  value` (values wrapped under their column, never cut), the digest in full,
    /// and the warnings again just above the question.
    public func rendered(width: Int = 100) -> String {
        var out = [TerminalText.safe(title)]
        let marks = warnings.map { "  ! " + TerminalText.safe($0) }
        out += marks
        let labelWidth = min(
            24, (lines.map { $0.depth * 2 + TerminalText.safe($0.label).count } + [digestName.count]).max() ?? 0)
        func emit(_ label: String, _ value: String, depth: Int) {
            let indent = String(repeating: " ", count: 2 + depth * 2)
            let safeLabel = TerminalText.safe(label)
            let pad = max(1, labelWidth - depth * 2 - safeLabel.count + 2)
            let head = indent + safeLabel + String(repeating: " ", count: pad)
            let column = head.count
            let room = max(16, width - column)
            var chunks = Self.wrap(TerminalText.safe(value), width: room)
            if chunks.isEmpty { chunks = [""] }
            out.append(head + chunks[0])
            for chunk in chunks.dropFirst() { out.append(String(repeating: " ", count: column) + chunk) }
        }
        for line in lines { emit(line.label, line.value, depth: line.depth) }
        emit(digestName, "0x" + Hex.encode(digest), depth: 0)
        if !warnings.isEmpty { out += marks }
        return out.map { line in String(line.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }

    /// `text` cut into pieces of at most `width` characters, at spaces where a word fits.
    static func wrap(_ text: String, width: Int) -> [String] {
        var out: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = Substring(paragraph)
            if rest.isEmpty {
                out.append("")
                continue
            }
            while rest.count > width {
                let cut = rest.index(rest.startIndex, offsetBy: width)
                if let space = rest[..<cut].lastIndex(of: " "),
                    rest.distance(from: rest.startIndex, to: space) > width / 2
                {
                    out.append(String(rest[..<space]))
                    rest = rest[rest.index(after: space)...]
                } else {
                    out.append(String(rest[..<cut]))
                    rest = rest[cut...]
                }
            }
            out.append(String(rest))
        }
        return out
    }
}

// MARK: - Amounts

extension SigningReview {
    /// `1.5 ETH (1500000000000000000 wei)`; `0 ETH`.
    public static func amount(_ wei: UInt256, symbol: String) -> String {
        if wei.isZero { return "0 \(symbol)" }
        return grouped(EthereumUnits.format(wei, unit: "ether")) + " \(symbol) (\(grouped(wei.description)) wei)"
    }

    /// A price per gas in gwei: `20 gwei`, `5,000 gwei`, `0.000000001 gwei`.
    public static func gwei(_ wei: UInt256) -> String {
        grouped(EthereumUnits.format(wei, unit: "gwei")) + " gwei"
    }

    /// Thousands separated in the whole part of a decimal number: 1234567.5 → 1,234,567.5.
    static func grouped(_ number: String) -> String {
        let parts = number.split(separator: ".", maxSplits: 1)
        let whole = Array(parts[0])
        var out = ""
        for (i, c) in whole.enumerated() {
            if i > 0 && (whole.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return parts.count == 2 ? out + "." + parts[1] : out
    }
}

// MARK: - Messages and digests

extension SigningReview {
    /// An EIP-191 personal message: its text when it is UTF-8 (escaped where it would act on the
    /// terminal), else its bytes in hex; a 32-byte message is flagged, since a hash signed as a
    /// message is the classic blind signature.
    public static func message(_ message: [UInt8]) -> SigningReview {
        var review = SigningReview(
            title: "EIP-191 personal message", digest: PersonalMessage.digest(message),
            digestName: "EIP-191 digest")
        if let text = String(validating: message, as: UTF8.self), TerminalText.isPlain(text) {
            review.add("text", text)
            review.add("length", "\(message.count) bytes, UTF-8")
        } else {
            review.add("bytes", "0x" + Hex.encode(message))
            review.add("length", "\(message.count) bytes (not printable text: shown in hex)")
        }
        if message.count == 32 {
            review.warnings.append(
                "this message is 32 bytes: it may be a transaction hash, and signing it blind is dangerous")
        }
        return review
    }

    /// A bare 32-byte digest: nothing about it can be shown.
    public static func rawDigest(_ digest: [UInt8]) -> SigningReview {
        var review = SigningReview(title: "raw 32-byte digest", digest: digest, digestName: "digest")
        review.add("what", "a digest only: kcs cannot tell what it commits to")
        review.warnings.append(
            "signing a bare digest is signing blind: it may be a transaction or a permit you cannot see")
        return review
    }
}

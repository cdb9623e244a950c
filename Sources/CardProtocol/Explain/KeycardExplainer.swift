import WalletCrypto

/// Decodes Keycard commands and answers into lines a person reads (docs/card-explained.md): the
/// class, the instruction, P1 and P2 with their meaning, the data field by field, the answer as a
/// TLV tree with tag names, and the status word's meaning — for applets 3.x and 4.0
/// (docs/keycard-protocol.md §5–§14). A byte it does not know is said to be unknown, never guessed.
/// Pure: the same bytes give the same lines, live or replayed.
public struct KeycardExplainer: Sendable {
    public var generation: KeycardGeneration
    public var view: TraceView
    /// The card's key came from GENERATE KEY: public keys, chain codes and the key UID are random.
    public var keysAreRandom = false

    public init(generation: KeycardGeneration, view: TraceView = TraceView()) {
        self.generation = generation
        self.view = view
    }

    /// The word every line a decoder cannot place contains (the tests look for it).
    public static let unknown = "unknown"

    // MARK: - Commands

    /// The command's lines: class and instruction, P1 and P2, the data.
    public func explain(_ command: TraceCommand) -> [ExplainLine] {
        var lines = [
            ExplainLine(
                "CLA \(hexByte(command.cla)) \(Self.classMeaning(command.cla)) · INS \(hexByte(command.ins)) \(name(of: command))"
            )
        ]
        let (p1, p2) = parameters(command)
        lines.append(ExplainLine("P1 \(hexByte(command.p1)) \(p1) · P2 \(hexByte(command.p2)) \(p2)"))
        lines += dataLines(command)
        return lines
    }

    /// The instruction's name; an INS no Keycard applet has is said to be unknown.
    public func name(of command: TraceCommand) -> String {
        if command.cla == 0x80, command.ins == 0x18 { return "SECURED APDU (4.0 Secure Channel V2)" }
        if case .other = command.command { return "\(Self.unknown) instruction" }
        let gone: Set<CardCommand> = [
            .deriveKey, .setPinlessPath, .pair, .unpair, .mutuallyAuthenticate, .identify, .changePairingSecret,
        ]
        if generation == .v4, gone.contains(command.command) { return command.command.name + " (not in applet 4.0)" }
        let added: Set<CardCommand> = [.exportLEE, .exportBIP85, .ecdh, .getChallenge]
        if generation == .v3, added.contains(command.command) {
            return command.command.name + " (applet 4.0; a 3.x card answers 6D 00)"
        }
        return command.command.name
    }

    static func classMeaning(_ cla: UInt8) -> String {
        switch cla {
        case 0x00: "ISO 7816-4 interindustry class, no secure messaging, logical channel 0"
        case 0x80: "proprietary class (Keycard commands)"
        default: "\(unknown) class"
        }
    }

    private static let noMeaning = "—"

    /// What P1 and P2 mean for this command.
    func parameters(_ c: TraceCommand) -> (String, String) {
        let zero = { (b: UInt8) in b == 0 ? Self.noMeaning : "\(Self.unknown) (expected 00)" }
        switch c.command {
        case .select:
            return (
                c.p1 == 0x04 ? "select by AID" : "\(Self.unknown) selection",
                c.p2 == 0 ? "first occurrence" : c.p2 == 0x0C ? "no answer data" : "\(Self.unknown) option"
            )
        case .pair:
            switch c.p1 {
            case 0x00:
                let mode =
                    [
                        0x00: "persistent slot, else ephemeral (3.2)", 0x01: "ephemeral pairing (3.2)",
                        0x02: "persistent slot only (3.2)",
                    ][Int(c.p2)] ?? "\(Self.unknown) pairing mode"
                return ("step 1: the client's challenge", mode)
            case 0x01: return ("step 2: the client's cryptogram", zero(c.p2))
            default: return ("\(Self.unknown) step", zero(c.p2))
            }
        case .unpair:
            return (c.p1 == 0xFF ? "the ephemeral pairing (3.2)" : "pairing slot \(c.p1)", zero(c.p2))
        case .openSecureChannel:
            return (generation == .v4 ? zero(c.p1) : "pairing slot \(c.p1)", zero(c.p2))
        case .getStatus:
            let what =
                [
                    0x00: "application status (PIN and PUK tries, key loaded)",
                    0x01: generation == .v4 ? "\(Self.unknown) on 4.0 (the key path is gone)" : "the current key path",
                ][Int(c.p1)] ?? "\(Self.unknown) status"
            return (what, zero(c.p2))
        case .changePIN, .changePUK, .changePairingSecret:
            let what =
                [
                    0x00: "the PIN in use", 0x01: "the PUK",
                    0x02: generation == .v4 ? "\(Self.unknown) on 4.0 (no pairing secret)" : "the pairing secret",
                ][Int(c.p1)] ?? "\(Self.unknown) credential"
            return (what, zero(c.p2))
        case .loadKey:
            let what =
                [
                    0x01: "ECC key pair", 0x02: "extended key pair (with chain code)", 0x03: "BIP-32 seed",
                    0x04: generation == .v4 ? "LEE seed (enters LEE mode)" : "\(Self.unknown) key kind",
                ][Int(c.p1)] ?? "\(Self.unknown) key kind"
            return (what, zero(c.p2))
        case .deriveKey:
            return (source(c.p1, allowPinless: true), zero(c.p2))
        case .generateMnemonic:
            return (
                (4...8).contains(c.p1)
                    ? "checksum \(c.p1) bits: \(Int(c.p1) * 3) words" : "\(Self.unknown) checksum size (4–8)",
                zero(c.p2)
            )
        case .sign: return signParameters(c)
        case .exportKey:
            let kind =
                [0x00: "private key", 0x01: "public key", 0x02: "public key and chain code"][Int(c.p2)]
                ?? "\(Self.unknown) export kind"
            if generation == .v4 { return ("ignored on 4.0 (the path is absolute)", kind) }
            return (option(c.p1, names: [0: "current key", 1: "derive", 2: "derive and make current"]), kind)
        case .exportBIP85:
            return ((1...64).contains(c.p1) ? "\(c.p1) bytes of entropy" : "\(Self.unknown) length (1–64)", zero(c.p2))
        case .ecdh:
            return (c.p1 == 0x01 ? "plain ECDH (x coordinate)" : "\(Self.unknown) variant", zero(c.p2))
        case .getData, .storeData:
            let slot =
                [0x00: "public data slot", 0x01: "NDEF data slot", 0x02: "Cash data slot"][Int(c.p1)]
                ?? "\(Self.unknown) slot"
            return (slot, c.p2 == 0 ? "offset 0" : "byte offset \(Int(c.p2) * 4)")
        case .factoryReset:
            return (
                c.p1 == 0xAA ? "confirmation byte AA" : "\(Self.unknown) (expected AA)",
                c.p2 == 0x55 ? "confirmation byte 55" : "\(Self.unknown) (expected 55)"
            )
        case .getChallenge:
            return ("\(c.p1) random bytes asked", zero(c.p2))
        case .getResponse:
            return (zero(c.p1), zero(c.p2))
        case .initialize, .mutuallyAuthenticate, .identify, .verifyPIN, .unblockPIN, .removeKey, .generateKey,
            .setPinlessPath, .exportLEE:
            return (zero(c.p1), zero(c.p2))
        case .other:
            if c.cla == 0x80, c.ins == 0x18 { return (zero(c.p1), zero(c.p2)) }
            return ("\(Self.unknown)", "\(Self.unknown)")
        }
    }

    private func signParameters(_ c: TraceCommand) -> (String, String) {
        if generation == .v4 {
            let algorithm =
                [0x00: "ECDSA", 0x03: "BIP-340 Schnorr (with tweak)"][Int(c.p2)] ?? "\(Self.unknown) algorithm"
            let p1 =
                c.p1 == 0x01
                ? "absolute path"
                : c.p1 & 0x3C == 0 ? "a 3.x option, gone on 4.0 (it takes 01: answers 6B 00)" : "\(Self.unknown) option"
            return (p1, algorithm)
        }
        let p2 =
            c.p2 == 0 ? "ECDSA (ignored up to 3.2)" : "ignored up to 3.2 (later builds: algorithm \(hexByte(c.p2)))"
        return (
            option(c.p1, names: [0: "current key", 1: "derive", 2: "derive and make current", 3: "the PIN-less path"]),
            p2
        )
    }

    /// P1 bits 1–0 an option, bits 7–6 the source (§10.9).
    private func option(_ p1: UInt8, names: [UInt8: String]) -> String {
        guard let name = names[p1 & 0x03], p1 & 0x3C == 0 else { return "\(Self.unknown) option" }
        let opt = p1 & 0x03
        return opt == 1 || opt == 2 ? "\(name), \(source(p1 & 0xC0, allowPinless: false))" : name
    }

    private func source(_ p1: UInt8, allowPinless: Bool) -> String {
        switch p1 {
        case 0x00: "from the master (absolute path)"
        case 0x40: "from the parent of the current key"
        case 0x80: "from the current key"
        case 0xC0 where allowPinless: "copy the PIN-less path"
        default: "\(Self.unknown) source"
        }
    }

    // MARK: - Command data

    private func dataLines(_ c: TraceCommand) -> [ExplainLine] {
        if c.count == 0 {
            if c.command == .setPinlessPath { return [ExplainLine("no data: the PIN-less path is removed")] }
            return [ExplainLine("no data")]
        }
        guard let d = c.data else { return maskedCommandData(c) }
        switch c.command {
        case .select: return [ExplainLine("AID \(spaced(d)) = \(Self.aidName(d))")]
        case .initialize: return initData(d)
        case .pair:
            return [
                ExplainLine(
                    c.p1 == 0
                        ? "client challenge (32 random) \(view.bytes(d, role: .challenge))"
                        : "client cryptogram = SHA-256(pairing secret ‖ card challenge) \(view.bytes(d, role: .cryptogram))"
                )
            ]
        case .openSecureChannel:
            if generation == .v4, d.count == 97 {
                return [
                    ExplainLine("salt (32 random) \(view.bytes(Array(d[0..<32]), role: .salt))"),
                    ExplainLine(
                        "client ephemeral key (65) \(view.bytes(Array(d[32...]), role: .clientKey)), fresh for this session"
                    ),
                ]
            }
            return [
                ExplainLine(
                    "client ephemeral key (\(d.count)) \(view.bytes(d, role: .clientKey)), fresh for this session")
            ]
        case .mutuallyAuthenticate:
            return [ExplainLine("client random (32) \(view.bytes(d, role: .challenge)): only its length is checked")]
        case .identify:
            return [
                ExplainLine(
                    "challenge (32 random) \(view.bytes(d, role: .challenge)): the card signs it with its identity key")
            ]
        case .deriveKey, .setPinlessPath, .exportKey, .exportLEE, .exportBIP85:
            return [
                pathLine(
                    d[...],
                    relative: c.command == .deriveKey
                        || (c.command == .exportKey && generation == .v3 && c.p1 & 0xC0 != 0))
            ]
        case .sign: return signData(c, d)
        case .ecdh:
            guard d.count >= 65 else { return [ExplainLine("\(Self.unknown) data \(view.bytes(d))")] }
            return [
                ExplainLine("peer public key (65) \(view.bytes(Array(d[0..<65])))"),
                pathLine(d[65...], relative: false),
            ]
        case .storeData, .getData: return [ExplainLine("bytes to store (\(d.count)) \(view.bytes(d))")]
        case .factoryReset: return [ExplainLine("data (ignored) \(view.bytes(d))")]
        case .other where c.cla == 0x80 && c.ins == 0x18:
            return [
                ExplainLine(
                    "AES-128-CCM(host→card key, nonce N, inner APDU) ‖ tag (8): \(view.bytes(d, role: .sealed))")
            ]
        default: return [ExplainLine("\(Self.unknown) data (\(d.count) B) \(view.bytes(d))")]
        }
    }

    /// What a masked command carried, by length.
    private func maskedCommandData(_ c: TraceCommand) -> [ExplainLine] {
        let n = c.count
        switch c.command {
        case .verifyPIN: return [ExplainLine("PIN \(TraceView.bullets(n)) (never shown)")]
        case .changePIN: return [ExplainLine("new PIN \(TraceView.bullets(n)) (never shown)")]
        case .changePUK: return [ExplainLine("new PUK \(TraceView.bullets(n)) (never shown)")]
        case .unblockPIN:
            return [
                ExplainLine(
                    "PUK \(TraceView.bullets(min(12, n))) ‖ new PIN \(TraceView.bullets(max(0, n - 12))) (never shown)")
            ]
        case .initialize:
            var parts = ["PIN \(TraceView.bullets(6))", "PUK \(TraceView.bullets(12))"]
            if n >= 20 { parts.append("PIN tries, PUK tries") }
            if n >= 26 { parts.append("duress PIN \(TraceView.bullets(6))") }
            return [ExplainLine(parts.joined(separator: " ‖ ") + " (never shown)")]
        case .changePairingSecret: return [ExplainLine("new pairing secret \(TraceView.masked(n))")]
        case .loadKey:
            let what =
                [
                    0x01: "key pair TLV A1 {80 public key, 81 private key}",
                    0x02: "key pair TLV A1 {80 public key, 81 private key, 82 chain code}", 0x03: "BIP-32 seed",
                    0x04: "LEE seed",
                ][Int(c.p1)] ?? "key"
            return [ExplainLine("\(what) \(TraceView.masked(n))")]
        default: return [ExplainLine("data \(TraceView.masked(n))")]
        }
    }

    private func initData(_ d: [UInt8]) -> [ExplainLine] {
        guard generation == .v3, d.count > 82, d[0] == 0x41 else {
            return [ExplainLine("\(Self.unknown) INIT data (\(d.count) B)")]
        }
        return [
            ExplainLine("41 length of the client key"),
            ExplainLine("client ephemeral key (65) \(view.bytes(Array(d[1..<66]), role: .clientKey))"),
            ExplainLine("IV (16) \(view.bytes(Array(d[66..<82]), role: .iv))"),
            ExplainLine(
                "AES-256-CBC(ECDH-X(client key, card key), IV, PIN ‖ PUK ‖ pairing secret …) (\(d.count - 82) B) \(view.bytes(Array(d[82...]), role: .ciphertext))"
            ),
        ]
    }

    private func signData(_ c: TraceCommand, _ d: [UInt8]) -> [ExplainLine] {
        guard d.count >= 32 else {
            return [ExplainLine("\(Self.unknown) data: shorter than a 32-byte hash (\(view.bytes(d)))")]
        }
        var lines = [ExplainLine("hash to sign (32) \(view.bytes(Array(d[0..<32])))")]
        var rest = d[32...]
        if generation == .v4, c.p2 == 0x03 {
            guard rest.count >= 32 else { return lines + [ExplainLine("\(Self.unknown) data: no 32-byte tweak")] }
            lines.append(ExplainLine("tweak (32) \(view.bytes(Array(rest.prefix(32))))"))
            rest = rest.dropFirst(32)
        }
        if generation == .v3, c.p1 & 0x03 == 0x03 { return lines }
        lines.append(pathLine(rest, relative: generation == .v3 && (c.p1 & 0x03 == 0 || c.p1 & 0xC0 != 0)))
        return lines
    }

    private func pathLine(_ bytes: ArraySlice<UInt8>, relative: Bool) -> ExplainLine {
        guard let text = pathText(bytes) else {
            return ExplainLine("\(Self.unknown) path: \(bytes.count) B is not a multiple of 4")
        }
        if bytes.isEmpty {
            return ExplainLine(relative ? "path: empty (the source key itself)" : "path: m (the master key)")
        }
        return ExplainLine(
            "path \(relative ? text : "m/" + text) (\(bytes.count / 4) × 4-byte index, bit 31 = hardened)")
    }

    /// The name of a Keycard AID (docs/keycard-protocol.md §3).
    static func aidName(_ aid: [UInt8]) -> String {
        let package: [UInt8] = [0xA0, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01]
        if aid == [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01] { return "NDEF applet instance" }
        guard aid.count >= 7, Array(aid[0..<7]) == package else { return "\(unknown) application" }
        if aid.count == 7 { return "Keycard package" }
        let applet = [0x01: "Keycard", 0x02: "NDEF", 0x03: "Cash", 0x04: "Ident"][Int(aid[7])]
        guard let applet else { return "\(unknown) Keycard application" }
        if aid.count == 8 { return "\(applet) applet class" }
        if aid.count == 9 {
            return aid[8] == 1 ? "\(applet) applet instance (default)" : "\(applet) applet instance \(aid[8])"
        }
        return "\(unknown) application"
    }
}

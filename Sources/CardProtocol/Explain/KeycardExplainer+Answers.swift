import WalletCrypto

/// What one TLV field holds, for naming and showing it.
indirect enum TLVField: Sendable {
    case bytes(String, TraceRole?)
    case secret(String)
    case number(String)
    case flag(String)
    case template(String, [UInt8: TLVField])
    case version, capabilities, certificate, statusByte4, derSignature, schnorrSignature
}

extension KeycardExplainer {
    // MARK: - Answers

    /// The answer's lines: the data decoded for the command it answers, then the status word.
    public func explain(_ answer: TraceAnswer, to command: TraceCommand) -> [ExplainLine] {
        var lines: [ExplainLine] = []
        if answer.count == 0, answer.sw == 0x9000, command.command == .getStatus, command.p1 == 1, generation == .v3 {
            lines.append(ExplainLine("no path bytes: the current key is the master, m"))
        } else if answer.count > 0 {
            if let data = answer.data {
                lines += answerData(data, sw: answer.sw, to: command)
            } else {
                lines.append(ExplainLine("answer \(maskedAnswerName(command)) \(TraceView.masked(answer.count))"))
            }
        }
        lines.append(
            ExplainLine(
                "SW \(spaced([UInt8(answer.sw >> 8), UInt8(answer.sw & 0xFF)])) \(statusMeaning(answer.sw, to: command))"
            ))
        return lines
    }

    private func maskedAnswerName(_ c: TraceCommand) -> String {
        switch c.command {
        case .exportKey: "A1 {81 private key}"
        case .exportLEE: "A1 {83 nullifier key, 84 viewing key}"
        case .exportBIP85: "BIP-85 entropy"
        case .ecdh: "shared secret x(k·peer)"
        case .generateMnemonic: "word indexes of a new mnemonic"
        default: "data"
        }
    }

    private func answerData(_ d: [UInt8], sw: UInt16, to c: TraceCommand) -> [ExplainLine] {
        switch c.command {
        case .select: return selectAnswer(d)
        case .pair where c.p1 == 0 && d.count == 64:
            return [
                ExplainLine(
                    "card cryptogram = SHA-256(pairing secret ‖ client challenge) \(view.bytes(Array(d[0..<32]), role: .cryptogram))"
                ), ExplainLine("card challenge (32 random) \(view.bytes(Array(d[32...]), role: .challenge))"),
            ]
        case .pair where c.p1 == 1 && d.count == 33:
            return [
                ExplainLine("pairing slot \(d[0])"),
                ExplainLine(
                    "salt (32) \(view.bytes(Array(d[1...]), role: .salt)): pairing key = SHA-256(pairing secret ‖ salt)"
                ),
            ]
        case .openSecureChannel where generation == .v3 && d.count == 48:
            return [
                ExplainLine("salt (32 random) \(view.bytes(Array(d[0..<32]), role: .salt))"),
                ExplainLine(
                    "IV0 (16 random) \(view.bytes(Array(d[32...]), role: .iv)): the IV of the first secured command"),
            ]
        case .openSecureChannel where generation == .v4 && d.count > 65:
            return [
                ExplainLine("card ephemeral key (65) \(view.bytes(Array(d[0..<65]), role: .cardEphemeralKey))"),
                ExplainLine(
                    "ECDSA signature by the identity key over SHA-256(\"sc_v2_ccm\" ‖ salt ‖ client key ‖ card key), DER \(view.bytes(Array(d[65...]), role: .signature))"
                ),
            ]
        case .mutuallyAuthenticate where d.count == 32:
            return [
                ExplainLine(
                    "card random (32) \(view.bytes(d, role: .challenge)): the MAC over it proves the card holds the session keys"
                )
            ]
        case .identify:
            return tree(d, [0xA0: .template("identification template", [0x8A: .certificate, 0x30: .derSignature])])
        case .getStatus where c.p1 == 0:
            return tree(
                d,
                [0xA3: .template("application status template", [0x02: .number("tries"), 0x01: .flag("key loaded")])],
                counters: true)
        case .getStatus where c.p1 == 1:
            return [
                ExplainLine(
                    pathText(d[...]).map { "current key path m\($0.isEmpty ? "" : "/" + $0)" }
                        ?? "\(Self.unknown) path (\(d.count) B)")
            ]
        case .loadKey,
            .generateKey where d.count == 32:
            return [
                ExplainLine(
                    "key UID = SHA-256(master public key) \(view.bytes(d, role: c.command == .generateKey ? .keyUID : nil))"
                )
            ]
        case .generateMnemonic where d.count % 2 == 0:
            return [
                ExplainLine(
                    "\(d.count / 2) word indexes (11 bits each, big-endian 16-bit) \(view.secret(d, count: d.count))")
            ]
        case .sign:
            if d.first == 0x80, d.count == 67 {
                return [
                    ExplainLine("raw signature r ‖ s ‖ recovery id \(view.bytes(Array(d[2...]), role: .signature))")
                ]
            }
            return tree(
                d,
                [
                    0xA0: .template(
                        "signature template",
                        [
                            0x80: .bytes("public key of the signing key", nil), 0x30: .derSignature,
                            0x88: .schnorrSignature,
                        ])
                ])
        case .exportKey:
            return tree(
                d,
                [
                    0xA1: .template(
                        "key template",
                        [
                            0x80: .bytes("public key", nil), 0x81: .secret("private key"),
                            0x82: .bytes("chain code", nil),
                        ])
                ])
        case .exportLEE:
            return tree(
                d,
                [
                    0xA1: .template(
                        "LEE key template",
                        [0x83: .secret("nullifier secret key"), 0x84: .secret("viewing secret key")])
                ])
        case .exportBIP85: return [ExplainLine("BIP-85 entropy (\(d.count)) \(view.secret(d, count: d.count))")]
        case .ecdh: return [ExplainLine("shared secret x(k·peer) (\(d.count)) \(view.secret(d, count: d.count))")]
        case .getData: return [ExplainLine("stored bytes (\(d.count)) \(view.bytes(d))")]
        case .getChallenge: return [ExplainLine("random bytes (\(d.count)) \(view.bytes(d, role: .random))")]
        case .getResponse: return [ExplainLine("the rest of the answer (\(d.count) B) \(view.bytes(d))")]
        case .other where c.cla == 0x80 && c.ins == 0x18:
            return [
                ExplainLine(
                    "AES-128-CCM(card→host key, nonce N, inner answer) ‖ tag (8): \(view.bytes(d, role: .sealed))")
            ]
        default:
            return [ExplainLine("\(Self.unknown) answer data (\(d.count) B) \(view.bytes(d))")]
        }
    }

    // MARK: SELECT

    private func selectAnswer(_ d: [UInt8]) -> [ExplainLine] {
        if d.first == 0x80, d.count == 67 {
            return [
                ExplainLine(
                    "80 41 card channel key \(view.bytes(Array(d[2...]), role: .cardKey)) (pre-initialized: INIT encrypts to it)"
                )
            ]
        }
        guard d.first == 0xA4, d.count >= 2 else {
            return [ExplainLine("\(Self.unknown) SELECT answer \(view.bytes(d))")]
        }
        let headerLength = d[1] == 0x81 ? 3 : 2
        guard d.count >= headerLength else { return [ExplainLine("\(Self.unknown) SELECT answer \(view.bytes(d))")] }
        let declared = headerLength == 3 ? Int(d[2]) : Int(d[1])
        let content = Array(d[headerLength...])
        var lines = [ExplainLine("A4 application template (\(content.count) B)")]
        if declared != content.count {
            lines.append(
                ExplainLine(
                    "length byte says \(declared), the content is \(content.count): the 4.0 applet writes one less; read field by field",
                    depth: 1))
        }
        let fields: [UInt8: TLVField] = [
            0x8F: .bytes("instance UID", .instanceUID),
            0x80: .bytes("card channel key (static; OPEN SECURE CHANNEL uses it)", .cardKey),
            0x02: .version, 0x8E: .bytes("key UID = SHA-256(master public key)", nil), 0x8D: .capabilities,
            0x8C: .statusByte4, 0x8A: .certificate,
        ]
        lines += fieldLines(content, fields, depth: 1, versionSeen: false)
        return lines
    }

    // MARK: TLV trees

    private func tree(_ d: [UInt8], _ top: [UInt8: TLVField], counters: Bool = false) -> [ExplainLine] {
        fieldLines(d, top, depth: 0, versionSeen: false, counters: counters)
    }

    private func fieldLines(
        _ bytes: [UInt8], _ fields: [UInt8: TLVField], depth: Int, versionSeen: Bool, counters: Bool = false
    ) -> [ExplainLine] {
        guard let parsed = try? TLV.parse(bytes) else {
            return [ExplainLine("\(Self.unknown) bytes, not a TLV: \(view.bytes(bytes))", depth: depth)]
        }
        var lines: [ExplainLine] = []
        var seenVersion = versionSeen
        var numbers = 0
        for field in parsed {
            // A DER signature's length varies: a diffable trace does not show it, nor its template's.
            // (A template varies when it holds a DER signature, tag 30 — not when any byte of it is 0x30.)
            let varies =
                view.diffable
                && (field.tag == 0x30
                    || (field.tag == 0xA0 && ((try? TLV.parse(field.value))?.contains { $0.tag == 0x30 } ?? false)))
            let head = "\(hexByte(field.tag)) \(varies ? "LL" : lengthText(field.value.count))"
            let value = field.value
            switch fields[field.tag] {
            case .bytes(let name, let role)?:
                let random = keysAreRandom && [0x80, 0x82, 0x8E].contains(field.tag) ? TraceRole.random : nil
                lines.append(ExplainLine("\(head) \(name) \(view.bytes(value, role: role ?? random))", depth: depth))
            case .secret(let name)?:
                lines.append(ExplainLine("\(head) \(name) \(view.secret(value, count: value.count))", depth: depth))
            case .number(let name)?:
                let which = counters ? (numbers == 0 ? "PIN " : "PUK ") : ""
                numbers += 1
                lines.append(ExplainLine("\(head) \(which)\(name) \(value.map { String($0) }.joined())", depth: depth))
            case .flag(let name)?:
                let word =
                    value == [0xFF] ? "yes" : value == [0x00] ? "no" : "\(Self.unknown) value \(view.bytes(value))"
                lines.append(ExplainLine("\(head) \(name): \(word)", depth: depth))
            case .template(let name, let inner)?:
                lines.append(ExplainLine("\(head) \(name)", depth: depth))
                lines += fieldLines(value, inner, depth: depth + 1, versionSeen: seenVersion, counters: counters)
            case .version?:
                if !seenVersion, value.count == 2 {
                    seenVersion = true
                    lines.append(ExplainLine("\(head) applet version \(value[0]).\(value[1])", depth: depth))
                } else if value.count == 1 {
                    lines.append(ExplainLine("\(head) free pairing slots \(value[0])", depth: depth))
                } else {
                    lines.append(ExplainLine("\(head) \(Self.unknown) integer \(view.bytes(value))", depth: depth))
                }
            case .capabilities?:
                let c = Capabilities(rawValue: value.first ?? 0)
                let extra = (value.first ?? 0) & 0xE0 != 0 ? " + \(Self.unknown) bits" : ""
                lines.append(ExplainLine("\(head) capabilities \(view.bytes(value)): \(c)\(extra)", depth: depth))
            case .statusByte4?:
                lines.append(
                    ExplainLine(
                        "\(head) status \(view.bytes(value)): \(Self.statusByte(value.first ?? 0))", depth: depth))
            case .certificate?:
                lines += certificateLines(value, head: head, depth: depth)
            case .derSignature?:
                lines.append(
                    ExplainLine(
                        "\(head) ECDSA signature, DER (r, s) \(view.bytes(field.encoded, role: .signature))",
                        depth: depth))
            case .schnorrSignature?:
                lines.append(
                    ExplainLine(
                        "\(head) BIP-340 Schnorr signature x(R) ‖ s \(view.bytes(value, role: .signature))",
                        depth: depth))
            case nil:
                lines.append(ExplainLine("\(head) \(Self.unknown) tag \(view.bytes(value))", depth: depth))
            }
        }
        return lines
    }

    private func lengthText(_ n: Int) -> String { n < 0x80 ? hexByte(UInt8(n)) : "81 \(hexByte(UInt8(n & 0xFF)))" }

    private func certificateLines(_ v: [UInt8], head: String, depth: Int) -> [ExplainLine] {
        guard v.count == 98 else {
            return [ExplainLine("\(head) \(Self.unknown) certificate of \(v.count) B", depth: depth)]
        }
        if view.diffable {
            return [
                ExplainLine(
                    "\(head) identity certificate <\(TraceRole.certificate.rawValue) 98 B>: identity key (33) ‖ CA signature r ‖ s ‖ v",
                    depth: depth)
            ]
        }
        return [
            ExplainLine("\(head) identity certificate", depth: depth),
            ExplainLine("identity public key (33) \(view.bytes(Array(v[0..<33])))", depth: depth + 1),
            ExplainLine(
                "CA signature r ‖ s ‖ v over SHA-256(identity key) \(view.bytes(Array(v[33...])))", depth: depth + 1),
        ]
    }

    /// The 4.0 SELECT status byte (§14.1).
    static func statusByte(_ b: UInt8) -> String {
        var parts = [b & 0x10 != 0 ? "initialized" : "not initialized"]
        if b & 0x20 != 0 { parts.append("LEE mode") }
        if b & 0xC0 != 0 { parts.append("\(unknown) bits \(hexByte(b & 0xC0))") }
        parts.append("PIN tries left \(b & 0x0F)")
        return parts.joined(separator: ", ")
    }

    // MARK: - Status words

    /// The status word's meaning for this command (docs/keycard-protocol.md §13, §14).
    public func statusMeaning(_ sw: UInt16, to c: TraceCommand) -> String {
        let sw1 = UInt8(sw >> 8), sw2 = UInt8(sw & 0xFF)
        switch sw {
        case 0x9000: return "success"
        case 0x6700: return "wrong length (from the reader or runtime; the applet never sends it)"
        case 0x6982:
            if c.command == .pair {
                return "security status not satisfied: the client cryptogram does not match (wrong pairing secret)"
            }
            return
                "security status not satisfied: the card closed the secure channel (MAC or tag wrong, or a malformed MUTUALLY AUTHENTICATE)"
        case 0x6984: return "data invalid: the BIP-32 derivation gave an invalid key"
        case 0x6985: return "conditions not satisfied: \(conditionsHint(c))"
        case 0x6A80: return "wrong data: bad length or format"
        case 0x6A81: return "function not supported (an algorithm this build does not have)"
        case 0x6A82: return "application or file not found"
        case 0x6A84: return c.command == .pair ? "not enough memory: no free pairing slot" : "not enough memory"
        case 0x6A86: return "incorrect P1/P2 (an empty slot or one past the table, an undefined value)"
        case 0x6A88: return "referenced data not found: no PIN-less path is set"
        case 0x6B00: return "wrong P1/P2 (undefined option bits, or a parent source at the master)"
        case 0x6D00: return "instruction not supported (not in this applet or build, or not in this card state)"
        case 0x6F00: return "no precise diagnosis (an exception inside the applet)"
        case 0x6F01...0x6F05:
            let names = ["illegal value", "uninitialised key", "no such algorithm", "invalid init", "illegal use"]
            return "CryptoException caught by the applet: \(names[Int(sw2) - 1])"
        default: break
        }
        if sw1 == 0x63, sw2 & 0xF0 == 0xC0 {
            let what = c.command == .unblockPIN ? "PUK" : "PIN"
            let n = sw2 & 0x0F
            return n == 0
                ? "verification failed: wrong \(what), now blocked (0 tries left)"
                : "verification failed: wrong \(what), \(n) tr\(n == 1 ? "y" : "ies") left"
        }
        if sw1 == 0x61 { return "\(sw2 == 0 ? 256 : Int(sw2)) more bytes wait: GET RESPONSE fetches them" }
        if sw1 == 0x6C { return "wrong Le: send the command again with Le \(hexByte(sw2))" }
        return "\(Self.unknown) status word"
    }

    private func conditionsHint(_ c: TraceCommand) -> String {
        switch c.command {
        case .unblockPIN: "the PIN is not blocked (or no channel)"
        case .pair: "a secure channel is open"
        case .mutuallyAuthenticate: "no OPEN SECURE CHANNEL before it, or already authenticated"
        case .identify: "no certificate on this card"
        case .exportKey: "no channel, PIN not verified, no key, or the export policy refuses this path"
        case .select: "no identity provisioned (4.0)"
        default: "no secure channel, PIN not verified, or no key loaded"
        }
    }
}

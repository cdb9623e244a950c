import CardProtocol
import WalletCrypto

// MARK: - Keycard applet 4.0: Secure Channel V2 and the commands inside it (docs/keycard-protocol.md §14)

extension KeycardApplet {
    /// The 4.0 applet's outer dispatcher (§14.3). Without a provisioned identity every command
    /// answers `69 85`. Outer commands: OPEN SECURE CHANNEL (`10`), SECURED APDU (`18`), FACTORY
    /// RESET (`FD`); anything else is `69 85` — answered inside the session, counting a round trip,
    /// when one is open, as every refusal of an outer command is.
    func processV4(_ apdu: CommandAPDU) -> [UInt8] {
        guard state.identity != nil else { return CardStatus.conditionsNotSatisfied.bytes }
        switch apdu.ins {
        case 0x10: return openSecureChannelV2(apdu)
        case 0x18: return securedAPDU(apdu)
        case 0xFD:
            guard apdu.p1 == 0xAA, apdu.p2 == 0x55 else { return refuseOuter(.incorrectP1P2) }
            factoryResetV4()
            return [0x90, 0x00]
        default:
            return refuseOuter(.conditionsNotSatisfied)
        }
    }

    /// An outer command refused: inside the session when one is open, plain otherwise.
    func refuseOuter(_ status: CardStatus) -> [UInt8] {
        v2Session == nil ? status.bytes : sealV2(status.bytes)
    }

    /// SELECT on a 4.0 applet: `A4 { 02 version; 8C status; 8E key UID; 8D capabilities; 8A certificate }`
    /// with the template length one byte short, as the applet writes it (§14.1) — its true length on
    /// the `select-fixed` build variant; `69 85` without an identity.
    func selectResponseV4() -> [UInt8] {
        guard let identity = state.identity else { return CardStatus.conditionsNotSatisfied.bytes }
        var body: [UInt8] = [0x02, 0x02, profile.version.major, profile.version.minor]
        body += [0x8C, 0x01, statusByteV4]
        body += state.masterKey == nil ? [0x8E, 0x00] : [0x8E, UInt8(state.keyUID.count)] + state.keyUID
        body += [0x8D, 0x01, profile.capabilities]
        body += [0x8A, UInt8(identity.certificate.count)] + identity.certificate
        let length = UInt8(body.count - (profile.has(.selectLengthFixed) ? 0 : 1))
        let header: [UInt8] = length < 0x80 ? [0xA4, length] : [0xA4, 0x81, length]
        return header + body + [0x90, 0x00]
    }

    /// `10` initialized, low nibble the tries left of the PIN in use; `00` before INIT.
    var statusByteV4: UInt8 {
        guard state.credentials != nil else { return 0x00 }
        return 0x10 | (state.lee == nil ? 0 : 0x20) | (pinRecord(currentPIN).remaining & 0x0F)
    }

    // MARK: OPEN SECURE CHANNEL (§14.2)

    /// Check order: Lc ≠ 97 `6A 80`; P1/P2 ≠ 0 `6A 86`; the client key not an uncompressed point
    /// `6A 80`. The card draws an ephemeral key (32) and signature entropy (32), signs
    /// SHA-256("sc_v2_ccm" ‖ salt ‖ client key ‖ card key) with its identity key without
    /// normalising S, and answers its key ‖ the DER signature. A new session starts at nonce 0 and
    /// keeps the PIN state; a refused OPEN is answered inside the old session, which goes on.
    func openSecureChannelV2(_ apdu: CommandAPDU) -> [UInt8] {
        let d = apdu.data
        guard d.count == 97 else { return refuseOuter(.wrongData) }
        guard apdu.p1 == 0, apdu.p2 == 0 else { return refuseOuter(.incorrectP1P2) }
        let salt = Array(d[0..<32]), clientKey = Array(d[32..<97])
        guard clientKey[0] == 0x04, let peer = try? PublicKey(bytes: clientKey),
            let identity = state.identity, let identityKey = try? PrivateKey(bytes: identity.privateKey.bytes)
        else { return refuseOuter(.wrongData) }
        let ephemeral = PrivateKey.generate(using: random)
        guard let shared = try? ephemeral.sharedSecretX(with: peer) else { return refuseOuter(.wrongData) }
        let cardKey = ephemeral.publicKey.uncompressed
        let digest = SessionKeysV2.transcriptDigest(salt: salt, clientKey: clientKey, cardKey: cardKey)
        let entropy = random.bytes(32)
        guard let signature = try? identityKey.sign(digest: digest, extraEntropy: entropy).signature else {
            return CardStatus.unknown.bytes
        }
        let s = entropy[31] & 1 == 1 ? DERCard.negated(signature.s) : signature.s
        let keys = SessionKeysV2.derive(sharedX: shared, salt: salt)
        v2Session = V2Session(hostToCard: keys.hostToCard, cardToHost: keys.cardToHost, counter: 0)
        return cardKey + DERCard.signature(r: signature.r, s: s, fixedLengthS: false) + [0x90, 0x00]
    }

    // MARK: SECURED APDU (§14.3)

    /// Check order, all answered plain: no session `69 85`; Lc < 13, a wrong tag, or an inner
    /// length that is not 5 + its Lc close the session and answer `69 82`. Otherwise the inner
    /// command runs and its answer (data ‖ SW, whatever the SW) comes back sealed.
    func securedAPDU(_ apdu: CommandAPDU) -> [UInt8] {
        guard let session = v2Session else { return CardStatus.conditionsNotSatisfied.bytes }
        guard apdu.data.count >= 13,
            var plain = try? AESCipher.ccmOpen(
                apdu.data, key: session.hostToCard, nonce: SecureChannelV2.nonce(session.counter),
                tagLength: SecureChannelV2.tagLength),
            plain.count >= 5, plain.count == 5 + Int(plain[4])
        else {
            v2Session = nil
            return CardStatus.securityStatusNotSatisfied.bytes
        }
        defer { Secret.wipe(&plain) }
        let inner = InnerAPDU(cla: plain[0], ins: plain[1], p1: plain[2], p2: plain[3], data: Array(plain[5...]))
        var answer = innerV4(inner)
        defer { Secret.wipe(&answer) }
        innerLog?(Array(plain[0..<4]), inner.data, answer)
        return sealV2(answer)
    }

    /// Seals data ‖ SW under the card-to-host key and the current nonce, then counts the round trip.
    func sealV2(_ answer: [UInt8]) -> [UInt8] {
        guard let session = v2Session,
            let sealed = try? AESCipher.ccmSeal(
                answer, key: session.cardToHost, nonce: SecureChannelV2.nonce(session.counter),
                tagLength: SecureChannelV2.tagLength)
        else { return CardStatus.unknown.bytes }
        v2Session?.counter += 1
        return sealed + [0x90, 0x00]
    }

    // MARK: Inner commands (§14.4–§14.7)

    /// The inner dispatcher. Before INIT only INIT acts, and every other command answers an empty
    /// `90 00` (the applet's quirk: a client must read "blank" from SELECT's status byte).
    func innerV4(_ apdu: InnerAPDU) -> [UInt8] {
        guard state.credentials != nil else {
            if apdu.ins == 0x84 { return getChallenge(apdu) }
            guard apdu.ins == 0xFE else { return [0x90, 0x00] }
            do throws(CardStatus) {
                try initializeV4(apdu.data)
                return [0x90, 0x00]
            } catch {
                return error.bytes
            }
        }
        let command = CommandAPDU(cla: apdu.cla, ins: apdu.ins, p1: apdu.p1, p2: apdu.p2, data: apdu.data)
        insideV2 = true
        defer { insideV2 = false }
        do throws(CardStatus) {
            let reply: Reply
            switch apdu.ins {
            case 0xF2: reply = try getStatusV4(command)
            case 0x20: reply = try verifyPINV4(command)
            case 0x21:
                guard apdu.p1 <= 0x01 else { throw .incorrectP1P2 }
                reply = try changePIN(command)
            case 0x22: reply = try unblockPINV4(command)
            case 0xD0: reply = try loadKeyV4(command)
            case 0xD2: reply = try generateMnemonic(command)
            case 0xD3: reply = try removeKey(command)
            case 0xD4:
                reply = try generateKey(command)
                state.lee = nil
            case 0xC3: reply = try exportLEE(command)
            case 0xC0: reply = try signV4(command)
            case 0xC2: reply = try exportKeyV4(command)
            case 0xC4 where profile.hasBIP85AndECDH: reply = try exportBIP85(command)
            case 0xC5 where profile.hasBIP85AndECDH: reply = try ecdh(command)
            case 0x84: return getChallenge(apdu)
            case 0xCA: reply = try getDataV4(command)
            case 0xE2: reply = try storeDataV4(command)
            default: throw .insNotSupported  // FE when initialized; 11, 12, 13, 14, D1, C1 are gone
            }
            switch reply {
            case .plain(let data), .wrapped(let data): return data + [0x90, 0x00]
            case .done: return [0x90, 0x00]
            case .final(let bytes): return bytes
            }
        } catch {
            return error.bytes
        }
    }

    /// INIT (§14.4): PIN (6) ‖ PUK (12) [‖ PIN tries ‖ PUK tries [‖ duress PIN (6)]], Lc 18, 20 or
    /// 26. Digits and tries (PIN 2…10, PUK 3…12) `6A 80`; PIN tries 7 to 10 then fail `6F 00` and
    /// leave the card blank, as the head build does (not on the `pin-tries-fixed` variant). Without a
    /// duress PIN it is the PIN itself.
    func initializeV4(_ d: [UInt8]) throws(CardStatus) {
        guard [18, 20, 26].contains(d.count), Self.allDigits(d[0..<18]) else { throw .wrongData }
        let pinTries = d.count >= 20 ? d[18] : 3, pukTries = d.count >= 20 ? d[19] : 5
        guard (2...10).contains(pinTries), (3...12).contains(pukTries) else { throw .wrongData }
        guard pinTries <= 6 || profile.has(.pinTriesFixed) else { throw .unknown }
        let pin = Array(d[0..<6])
        let duress = d.count == 26 ? Array(d[20..<26]) : pin
        state.credentials = Credentials(
            pin: PINRecord(value: pin, limit: pinTries), duressPIN: PINRecord(value: duress, limit: pinTries),
            puk: PINRecord(value: Array(d[6..<18]), limit: pukTries), pairingSecret: CardSecret([]))
        currentPIN = .main
    }

    /// GET STATUS (§14.5): P1 `00` only (the key path is gone: `6A 86`).
    func getStatusV4(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard apdu.p1 == 0x00 else { throw .incorrectP1P2 }
        return .wrapped([
            0xA3, 0x09, 0x02, 0x01, pinRecord(currentPIN).remaining, 0x02, 0x01, pinRecord(.puk).remaining,
            0x01, 0x01, state.masterKey == nil ? 0x00 : 0xFF,
        ])
    }

    /// VERIFY PIN (§14.5): not 6 digits `6A 80` (no try); the duress PIN is tried first — a match
    /// opens the duress wallet and leaves the main PIN's counter alone; then the main PIN, whose
    /// match resets the duress counter; a wrong PIN costs a try of both and answers the tries of
    /// the PIN in use.
    func verifyPINV4(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = apdu.data
        guard data.count == 6, Self.allDigits(data) else { throw .wrongData }
        if try checkPIN(.duress, data) {
            state.duressChainActive = true
            currentPIN = .duress
            return .done
        }
        if try checkPIN(.main, data) {
            state.duressChainActive = false
            resetAndUnblock(.duress)
            currentPIN = .main
            return .done
        }
        throw .triesLeft(pinRecord(currentPIN).remaining)
    }

    /// UNBLOCK PIN (§14.5): only when the PIN in use is blocked (`69 85`); PUK ‖ new PIN, 18
    /// digits (`6A 80`); a wrong PUK `63 CX`. Replaces and verifies only the PIN in use, and resets
    /// the PUK's counter.
    func unblockPINV4(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = apdu.data
        guard pinRecord(currentPIN).remaining == 0 else { throw .conditionsNotSatisfied }
        guard data.count == 18, Self.allDigits(data) else { throw .wrongData }
        guard try checkPIN(.puk, Array(data[0..<12])) else { throw .triesLeft(pinRecord(.puk).remaining) }
        let newPIN = Array(data[12..<18])
        updatePIN(currentPIN, newPIN)
        _ = try checkPIN(currentPIN, newPIN)
        resetAndUnblock(.puk)
        return .done
    }

    /// LOAD KEY (§14.6): a key pair (P1 `01`/`02`) as on 3.x, or a seed of 16 to 64 bytes (`03`).
    func loadKeyV4(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard isPINValidated else { throw .conditionsNotSatisfied }
        switch apdu.p1 {
        case 0x01, 0x02: try loadKeyPair(apdu.data)
        case 0x03, 0x04:
            guard (16...64).contains(apdu.data.count) else { throw .wrongData }
            if apdu.p1 == 0x04 { try loadLEESeed(apdu.data) } else { try loadSeedBytes(apdu.data) }
        default: throw .incorrectP1P2
        }
        if apdu.p1 != 0x04 { state.lee = nil }
        return .wrapped(finishKeyLoad())
    }

    /// The path of a 4.0 SIGN or EXPORT: always absolute; a non-empty path on a key without chain
    /// code `69 85`; not whole 4-byte indexes or deeper than 10 `6A 80`.
    func pathV4<C: Collection>(_ path: C) throws(CardStatus) -> [UInt8] where C.Element == UInt8 {
        guard state.isExtended || path.isEmpty else { throw .conditionsNotSatisfied }
        guard path.count % 4 == 0, path.count <= Self.maxPathBytes else { throw .wrongData }
        return Array(path)
    }

    /// EXPORT KEY (§14.7), P1 ignored. Check order: PIN and key `69 85`; P2 `6A 86`; path; policy
    /// `69 85` (a private key only under m/43'/60'/1581' with at least 5 indexes; no xpub there nor
    /// of the master); derivation `69 84`.
    func exportKeyV4(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard isPINValidated, state.masterKey != nil else { throw .conditionsNotSatisfied }
        guard apdu.p2 <= 0x02 else { throw .incorrectP1P2 }
        let path = try pathV4(apdu.data)
        let eip1581 = path.count >= Self.eip1581Prefix.count + 8 && path.starts(with: Self.eip1581Prefix)
        switch apdu.p2 {
        case 0x00: guard eip1581 else { throw .conditionsNotSatisfied }
        case 0x02: guard !eip1581, !path.isEmpty else { throw .conditionsNotSatisfied }
        default: break
        }
        let key = try deriveV4(path)
        var content: [UInt8]
        switch apdu.p2 {
        case 0x00: content = [0x81, 0x20] + key.secret.bytesCopy
        case 0x01: content = [0x80, 0x41] + key.publicKey.uncompressed
        default:
            content = [0x80, 0x41] + key.publicKey.uncompressed + [0x82, 0x20] + Array(derivationScratch[32..<64])
        }
        defer { Secret.wipe(&content) }
        return .wrapped([0xA1, UInt8(content.count)] + content)
    }

    /// SIGN (§14.6): P1 must be `01` (`6B 00`); the data hash ‖ path, or hash ‖ tweak ‖ path for
    /// Schnorr (`6A 80` when shorter); PIN and key `69 85`; path; derivation `69 84`; then the
    /// algorithm: P2 `00` ECDSA (random nonce, low S), `03` BIP-340 Schnorr with the tweak added to
    /// the even-Y key modulo n, as the applet's big-number addition does (a tweak of n signs with the
    /// key itself; aux drawn from the card's randomness); any other P2 `6A 81`. The answer
    /// carries the derived (untweaked) public key. The `schnorr-no-tweak` build variant reads the
    /// Schnorr data as hash ‖ path and signs plain BIP-340 (a tweak sent to it reads as path).
    func signV4(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard apdu.p1 == 0x01 else { throw .wrongP1P2 }
        let data = apdu.data
        let schnorr = apdu.p2 == 0x03
        let tweaked = schnorr && !profile.has(.schnorrWithoutTweak)
        let prefix = tweaked ? 64 : 32
        guard data.count >= prefix else { throw .wrongData }
        guard isPINValidated, state.masterKey != nil else { throw .conditionsNotSatisfied }
        let path = try pathV4(data[prefix...])
        let key = try deriveV4(path)
        let publicKey = key.publicKey.uncompressed
        switch apdu.p2 {
        case 0x00:
            let signature = try cardSignature(key: key, digest: Array(data[0..<32]))
            return .wrapped([0xA0, 0x81, UInt8(67 + signature.count), 0x80, 0x41] + publicKey + signature)
        case 0x03:
            guard
                let signature = try? key.signSchnorr(
                    message: Array(data[0..<32]),
                    tweak: tweaked
                        ? CardSchnorrSignature.reducedTweak(Array(data[32..<64]))
                        : [UInt8](repeating: 0, count: 32),
                    aux: random.bytes(32))
            else { throw .unknown }
            return .wrapped([0xA0, 0x81, 0x85, 0x80, 0x41] + publicKey + [0x88, 0x40] + signature)
        default:
            throw .functionNotSupported
        }
    }

    /// GET DATA (§14.11): channel, no PIN. Public and Cash data whole; the NDEF file (NLEN ‖ record,
    /// at most 512 bytes) in segments: byte offset 4·P2, `6A 86` at or past its end, then the rest if
    /// it is under 245 bytes, else 244 of them.
    func getDataV4(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        switch apdu.p1 {
        case 0x00: return .wrapped(state.publicData)
        case 0x02: return .wrapped(state.cashData)
        case 0x01:
            let file = ndefFile
            let total = min(Self.ndefFileSize, 2 + (Int(file[0]) << 8 | Int(file[1])))
            let offset = 4 * Int(apdu.p2)
            guard offset < total else { throw .incorrectP1P2 }
            return .wrapped(Array(file[offset..<(total - offset < 245 ? total : offset + 244)]))
        default: throw .incorrectP1P2
        }
    }

    /// STORE DATA (§14.11): PIN `69 85`; public and Cash data at most 127 bytes (`6A 80`); NDEF raw
    /// bytes written at byte offset 4·P2, ending at most at 512 (`6A 80`); other P1 `6A 86`.
    func storeDataV4(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard isPINValidated else { throw .conditionsNotSatisfied }
        let data = apdu.data
        switch apdu.p1 {
        case 0x00, 0x02:
            guard data.count <= 127 else { throw .wrongData }
            if apdu.p1 == 0x00 { state.publicData = data } else { state.cashData = data }
        case 0x01:
            let offset = 4 * Int(apdu.p2)
            guard offset + data.count <= Self.ndefFileSize else { throw .wrongData }
            var file = ndefFile
            file.replaceSubrange(offset..<(offset + data.count), with: data)
            state.ndefData = file
        default: throw .incorrectP1P2
        }
        return .done
    }

    /// The NDEF file's size on a 4.0 card.
    static let ndefFileSize = 512

    /// The 512-byte NDEF file: what was stored, then zeros.
    private var ndefFile: [UInt8] {
        Array(state.ndefData.prefix(Self.ndefFileSize))
            + [UInt8](repeating: 0, count: max(0, Self.ndefFileSize - state.ndefData.count))
    }

    /// EXPORT BIP85 (§14.8): P1 bytes (1…64) of HMAC-SHA512("bip-entropy-from-k", k), k the private key
    /// at a path under m/83696968' of at least two hardened indexes, derived with the active chain code.
    /// Check order: PIN and key `69 85`; P1 `6A 86`; path; the BIP-85 rule `6A 80`; derivation `69 84`.
    func exportBIP85(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard isPINValidated, state.masterKey != nil else { throw .conditionsNotSatisfied }
        guard (1...64).contains(apdu.p1) else { throw .incorrectP1P2 }
        let path = try pathV4(apdu.data)
        let hardened = stride(from: 0, to: path.count, by: 4).allSatisfy { path[$0] & 0x80 != 0 }
        guard path.count >= 8, path.starts(with: [0x84, 0xFD, 0x1D, 0x48]), hardened else { throw .wrongData }
        let key = try deriveV4(path)
        var mac = Hash.hmacSHA512(key: Array("bip-entropy-from-k".utf8), data: key.secret.bytesCopy)
        defer { Secret.wipe(&mac) }
        return .wrapped(Array(mac.prefix(Int(apdu.p1))))
    }

    /// ECDH (§14.8): `80 C5 01 00` peer public key (65, `04`) ‖ path; x(k·peer), 32 bytes, no KDF. Only
    /// under m/44'/1237' (NIP-44) or m/43'/60'/1581' (EIP-1581) with at least 5 indexes. Check order:
    /// P1/P2 `6B 00`; shape `6A 80`; PIN and key `69 85`; path; subtree `69 85`; the point `6A 80`.
    func ecdh(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard apdu.p1 == 0x01, apdu.p2 == 0x00 else { throw .wrongP1P2 }
        let data = apdu.data
        guard data.count >= 69, data[0] == 0x04 else { throw .wrongData }
        guard isPINValidated, state.masterKey != nil else { throw .conditionsNotSatisfied }
        let path = try pathV4(data[65...])
        let nostr: [UInt8] = [0x80, 0x00, 0x00, 0x2C, 0x80, 0x00, 0x04, 0xD5]
        guard path.count >= 20, path.starts(with: nostr) || path.starts(with: Self.eip1581Prefix) else {
            throw .conditionsNotSatisfied
        }
        guard let peer = try? PublicKey(bytes: Array(data[0..<65])) else { throw .wrongData }
        let key = try deriveV4(path)
        guard let shared = try? key.sharedSecretX(with: peer) else { throw .wrongData }
        return .wrapped(shared.bytesCopy)
    }

    /// GET CHALLENGE (§14.8): P1 (1…245) bytes of the card's randomness; no PIN, also before INIT.
    func getChallenge(_ apdu: InnerAPDU) -> [UInt8] {
        guard (1...245).contains(apdu.p1) else { return CardStatus.incorrectP1P2.bytes }
        return random.bytes(Int(apdu.p1)) + [0x90, 0x00]
    }

    // MARK: LEE mode (§14.9)

    /// LOAD KEY P1 04: the signing tree's master key ‖ chain code = HMAC-SHA512("LEE_master_pub", seed),
    /// the second secret ‖ its chain code = HMAC-SHA512("LEE_master_priv", seed).
    func loadLEESeed(_ seed: [UInt8]) throws(CardStatus) {
        var master = Hash.hmacSHA512(key: Array("LEE_master_pub".utf8), data: seed)
        var second = Hash.hmacSHA512(key: Array("LEE_master_priv".utf8), data: seed)
        defer {
            Secret.wipe(&master)
            Secret.wipe(&second)
        }
        guard let key = try? PrivateKey(bytes: Array(master[0..<32])) else { throw .wrongData }
        state.isExtended = true
        state.masterKey = MasterKey(
            privateKey: CardSecret(Array(master[0..<32])), publicKey: key.publicKey.uncompressed)
        state.masterChainCode = CardSecret(Array(master[32..<64]))
        state.lee = LEERecord(secret: CardSecret(Array(second[0..<32])), chainCode: CardSecret(Array(second[32..<64])))
    }

    /// The key at `path` on a 4.0 card: BIP-32 outside LEE mode; in LEE mode every index is derived
    /// with the hardened formula (00 ‖ k ‖ i) whatever its bit 31, then k := k + SHA-256(k·G compressed).
    /// The empty path is the master key itself. The active chain code (duress after a duress login).
    func deriveV4(_ path: [UInt8]) throws(CardStatus) -> PrivateKey {
        guard state.lee != nil else { return try derive(path) }
        guard let master = state.masterKey, var key = try? PrivateKey(bytes: master.privateKey.bytes) else {
            throw .conditionsNotSatisfied
        }
        guard !path.isEmpty else { return key }
        var chain = state.duressChainActive ? state.duressChainCode.bytes : state.masterChainCode.bytes
        for offset in stride(from: 0, to: path.count, by: 4) {
            var message = [0] + key.secret.bytesCopy + Array(path[offset..<offset + 4])
            var i = Hash.hmacSHA512(key: chain, data: message)
            Secret.wipe(&message)
            defer { Secret.wipe(&i) }
            guard let child = try? key.adding(tweak: Array(i[0..<32])) else { throw .dataInvalid }
            key = child
            chain = Array(i[32..<64])
        }
        guard let tweaked = try? key.adding(tweak: Hash.sha256(key.publicKey.compressed)) else { throw .dataInvalid }
        derivationScratch = tweaked.secret.bytesCopy + chain
        return tweaked
    }

    static let leeLabel = Array("LEE/keys".utf8)

    /// NSK(s, i) = SHA-256("LEE/keys" ‖ s ‖ 01 ‖ i ‖ 0¹⁹).
    static func leeNSK(_ s: [UInt8], _ index: [UInt8]) -> [UInt8] {
        Hash.sha256(leeLabel + s + [0x01] + index + [UInt8](repeating: 0, count: 19))
    }

    /// VSK(s, i) = HMAC-SHA512("LEE_viewing_seed", "LEE/keys" ‖ s ‖ 02 ‖ i ‖ 0¹⁹).
    static func leeVSK(_ s: [UInt8], _ index: [UInt8]) -> [UInt8] {
        Hash.hmacSHA512(
            key: Array("LEE_viewing_seed".utf8), data: leeLabel + s + [0x02] + index + [UInt8](repeating: 0, count: 19))
    }

    /// EXPORT LEE (§14.9): `A1 64 83 20 <NSK> 84 40 <VSK>` at `path` of the LEE tree. Check order: PIN
    /// and LEE mode `69 85`; path; a zero NSK `69 84`.
    func exportLEE(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard isPINValidated, let lee = state.lee else { throw .conditionsNotSatisfied }
        let path = try pathV4(apdu.data)
        let zero: [UInt8] = [0, 0, 0, 0]
        var nsk = Self.leeNSK(lee.secret.bytes, zero)
        var vsk = Self.leeVSK(lee.secret.bytes, zero)
        var chain = state.duressChainActive ? Hash.sha256(state.masterChainCode.bytes) : lee.chainCode.bytes
        for offset in stride(from: 0, to: path.count, by: 4) {
            let index = Array(path[offset..<offset + 4])
            let h = Hash.sha256(Self.leeLabel + nsk + vsk)
            var i = Hash.hmacSHA512(key: chain, data: Array("LEE_seed_priv".utf8) + h + index)
            chain = Array(i[32..<64])
            nsk = Self.leeNSK(Array(i[0..<32]), index)
            vsk = Self.leeVSK(Array(i[0..<32]), index)
            Secret.wipe(&i)
            guard nsk.contains(where: { $0 != 0 }) else { throw .dataInvalid }
        }
        defer {
            Secret.wipe(&nsk)
            Secret.wipe(&vsk)
        }
        return .wrapped([0xA1, 0x64, 0x83, 0x20] + nsk + [0x84, 0x40] + vsk)
    }

    /// FACTORY RESET on 4.0 (§14.3): keys, PINs and public data erased; the identity, NDEF and Cash
    /// data stay; the session ends.
    func factoryResetV4() {
        clearKeys()
        state.credentials = nil
        state.publicData = []
        state.duressChainActive = false
        currentPIN = .main
        clearSelectionState()
    }
}

/// A decrypted inner APDU (Lc always present, possibly 0).
struct InnerAPDU {
    let cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8
    let data: [UInt8]
}

/// One Secure Channel V2 session on the card: the two AES-128 keys and the round-trip counter.
struct V2Session {
    var hostToCard: Secret
    var cardToHost: Secret
    var counter: UInt64
}

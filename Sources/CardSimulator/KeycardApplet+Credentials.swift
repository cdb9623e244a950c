import WalletCrypto

// MARK: - INIT, PINs, status, FACTORY RESET (docs/keycard-protocol.md §7, §10.1–§10.4, §10.13)

extension KeycardApplet {
    // MARK: OwnerPIN model

    /// The persistent record of `kind`. Only called when initialized.
    func pinRecord(_ kind: PINKind) -> PINRecord {
        guard let c = state.credentials else { preconditionFailure("PIN objects exist only after INIT") }
        switch kind {
        case .main: return c.pin
        case .duress: return c.duressPIN
        case .puk: return c.puk
        }
    }

    func setPINRecord(_ kind: PINKind, _ record: PINRecord) {
        switch kind {
        case .main: state.credentials?.pin = record
        case .duress: state.credentials?.duressPIN = record
        case .puk: state.credentials?.puk = record
        }
    }

    /// `OwnerPIN.check`: clears the validated flag; a blocked PIN fails without counting; otherwise the
    /// try counter is decremented and **committed** before the comparison, and restored on a match.
    /// When the decrement cannot be committed the command stops here, nothing compared (`commit`):
    /// no way to learn whether a PIN is right without paying a try (docs/card.md).
    func checkPIN(_ kind: PINKind, _ candidate: [UInt8]) throws(CardStatus) -> Bool {
        validated.remove(kind)
        var record = pinRecord(kind)
        guard record.remaining > 0 else { return false }
        record.remaining -= 1
        setPINRecord(kind, record)
        try commit()
        let match = ConstantTime.equal(record.value.bytes, candidate)
        if match {
            record.remaining = record.limit
            validated.insert(kind)
        }
        setPINRecord(kind, record)
        return match
    }

    /// `OwnerPIN.resetAndUnblock`: not validated, tries back to the limit.
    func resetAndUnblock(_ kind: PINKind) {
        validated.remove(kind)
        var record = pinRecord(kind)
        record.remaining = record.limit
        setPINRecord(kind, record)
    }

    /// `OwnerPIN.update`: new value, tries back to the limit, not validated.
    func updatePIN(_ kind: PINKind, _ value: [UInt8]) {
        validated.remove(kind)
        var record = pinRecord(kind)
        record.value = CardSecret(value)
        record.remaining = record.limit
        setPINRecord(kind, record)
    }

    /// `pin.isValidated()` for the current PIN object (main, or duress after a duress login).
    var isPINValidated: Bool { validated.contains(currentPIN) }

    static func allDigits<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        bytes.allSatisfy { (0x30...0x39).contains($0) }
    }

    // MARK: SELECT (§5)

    /// The SELECT response; resets the PIN flags, closes the channel, makes the main PIN current.
    func selectResponse() -> [UInt8] {
        let channelKey = secureChannelPublicKey
        guard state.credentials != nil else { return [0x80, UInt8(channelKey.count)] + channelKey + [0x90, 0x00] }
        var body: [UInt8] = [0x8F, UInt8(state.instanceUID.count)] + state.instanceUID
        body += [0x80, UInt8(channelKey.count)] + channelKey
        body += [0x02, 0x02, profile.version.major, profile.version.minor]
        body += [0x02, 0x01, UInt8(state.freePairingSlots)]
        body += state.masterKey == nil ? [0x8E, 0x00] : [0x8E, UInt8(state.keyUID.count)] + state.keyUID
        body += [0x8D, 0x01, profile.capabilities]
        let header: [UInt8] = state.masterKey == nil ? [0xA4, UInt8(body.count)] : [0xA4, 0x81, UInt8(body.count)]
        return header + body + [0x90, 0x00]
    }

    // MARK: INIT (FE), PRE-INITIALIZED only (§7.2)

    /// One-shot ECDH + AES-CBC decryption of PIN ‖ PUK ‖ pairing secret [‖ tries [‖ duress PIN]].
    /// Bad point `6A80`; short, unaligned or badly padded ciphertext `6F00` (uncaught); bad payload
    /// `6A80`. Success stores the credentials and generates a new channel key pair.
    func initialize(_ apdu: CommandAPDU) throws(CardStatus) {
        let d = apdu.data
        guard let first = d.first else { throw .wrongData }
        let keyLength = Int(Int8(bitPattern: first))
        guard keyLength >= 0, d.count >= 1 + keyLength,
            let shared = ChannelCrypto.ecdh(privateKey: scPrivateKey, peer: Array(d[1..<1 + keyLength]))
        else { throw .wrongData }
        scBuffer.replaceSubrange(0..<32, with: shared.bytesCopy)
        let rest = Array(d[(1 + keyLength)...])
        guard rest.count >= 16 else { throw .unknown }
        var plain: [UInt8]
        do {
            plain = try ChannelCrypto.decrypt(Array(rest[16...]), key: shared, iv: Array(rest[0..<16]))
        } catch {
            throw .unknown
        }
        defer { Secret.wipe(&plain) }
        guard [50, 52, 58].contains(plain.count), Self.allDigits(plain[0..<18]) else { throw .wrongData }
        var pinLimit: UInt8 = 3
        var pukLimit: UInt8 = 5
        var duress = Array(plain[6..<12])  // default: the first six PUK digits
        if plain.count >= 52 {
            let p = Int8(bitPattern: plain[50]), k = Int8(bitPattern: plain[51])
            guard (2...10).contains(p), (3...12).contains(k) else { throw .wrongData }
            pinLimit = UInt8(p)
            pukLimit = UInt8(k)
            if plain.count == 58 { duress = Array(plain[52..<58]) }
        }
        let newKey = PrivateKey.generate(using: random)
        state.credentials = Credentials(
            pin: PINRecord(value: Array(plain[0..<6]), limit: pinLimit),
            duressPIN: PINRecord(value: duress, limit: pinLimit),
            puk: PINRecord(value: Array(plain[6..<18]), limit: pukLimit),
            pairingSecret: CardSecret(Array(plain[18..<50])))
        state.secureChannelKey = CardSecret(newKey.secret.bytesCopy)
        validated = []
        currentPIN = .main
    }

    // MARK: GET STATUS (F2), §10.1

    func getStatus(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        _ = try unwrap(apdu)
        switch apdu.p1 {
        case 0x00:
            return .wrapped([
                0xA3, 0x09, 0x02, 0x01, pinRecord(currentPIN).remaining,
                0x02, 0x01, pinRecord(.puk).remaining,
                0x01, 0x01, state.masterKey == nil ? 0x00 : 0xFF,
            ])
        case 0x01:
            return .wrapped(state.currentPath)
        default:
            throw .incorrectP1P2
        }
    }

    // MARK: VERIFY PIN (20), §10.2

    /// Format errors do not count; both PINs are checked (each decrements); a duress match wins and
    /// switches to the duress chain code; a main match switches back.
    func verifyPIN(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = try unwrap(apdu)
        guard data.count == 6, Self.allDigits(data) else { throw .wrongData }
        let main = try checkPIN(.main, data)
        let duress = try checkPIN(.duress, data)
        switch (main, duress) {
        case (false, false):
            throw .triesLeft(pinRecord(currentPIN).remaining)
        case (true, false):
            state.duressChainActive = false
            resetAndUnblock(.duress)
            currentPIN = .main
        case (_, true):
            state.duressChainActive = true
            resetAndUnblock(.main)
            currentPIN = .duress
        }
        return .done
    }

    // MARK: CHANGE PIN (21), §10.3

    func changePIN(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = try unwrap(apdu)
        guard isPINValidated else { throw .conditionsNotSatisfied }
        switch apdu.p1 {
        case 0x00:
            guard data.count == 6, Self.allDigits(data) else { throw .wrongData }
            updatePIN(currentPIN, data)
            _ = try checkPIN(currentPIN, data)
        case 0x01:
            guard data.count == 12, Self.allDigits(data) else { throw .wrongData }
            updatePIN(.puk, data)
        case 0x02:
            guard data.count == 32 else { throw .wrongData }
            state.credentials?.pairingSecret = CardSecret(data)
        default:
            throw .incorrectP1P2
        }
        return .done
    }

    // MARK: UNBLOCK PIN (22), §10.4

    func unblockPIN(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = try unwrap(apdu)
        guard pinRecord(currentPIN).remaining == 0 else { throw .conditionsNotSatisfied }
        guard data.count == 18, Self.allDigits(data) else { throw .wrongData }
        guard try checkPIN(.puk, Array(data[0..<12])) else { throw .triesLeft(pinRecord(.puk).remaining) }
        resetAndUnblock(.duress)
        resetAndUnblock(.main)
        let newPIN = Array(data[12..<18])
        updatePIN(currentPIN, newPIN)
        _ = try checkPIN(currentPIN, newPIN)
        validated.remove(.puk)
        return .done
    }

    // MARK: FACTORY RESET (FD), §10.13

    /// `80 FD AA 55`: back to PRE-INITIALIZED with a new instance UID and channel key; keys, PINs,
    /// pairing secret, pairings and public data are erased; NDEF and Cash data and the identity stay.
    /// Always a plain `9000` (the handler returns before the protected answer is built).
    func factoryReset(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard apdu.p1 == 0xAA, apdu.p2 == 0x55 else { throw .incorrectP1P2 }
        clearKeys()
        state.credentials = nil
        state.pairings = Array(repeating: nil, count: profile.pairingSlots)
        state.publicData = []
        state.instanceUID = random.bytes(16)
        state.secureChannelKey = CardSecret(PrivateKey.generate(using: random).secret.bytesCopy)
        clearSelectionState()
        return .final([0x90, 0x00])
    }

    /// `clearKeys`: master key, chain codes, key UID, current and PIN-less paths.
    func clearKeys() {
        state.currentPath = []
        state.pinlessPath = []
        state.isExtended = false
        state.masterKey = nil
        state.masterChainCode = .zeros(32)
        state.duressChainCode = .zeros(32)
        state.keyUID = [UInt8](repeating: 0, count: 32)
        state.lee = nil
    }
}

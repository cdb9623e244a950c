import WalletCrypto

// MARK: - Secure Channel V1, card side (docs/keycard-protocol.md §8, §9; applet `SecureChannel.java`)

extension KeycardApplet {
    /// `SecureChannel.isOpen()`: session keys set and MUTUALLY AUTHENTICATE done.
    var isOpen: Bool { session != nil && mutuallyAuthenticated }

    /// `SecureChannel.reset()`: drops the session keys and the authentication (not the IV buffer).
    func closeChannel() {
        session = nil
        mutuallyAuthenticated = false
    }

    /// `preprocessAPDU` (§9.5 steps 1–3): checks the MAC over `[CLA INS P1 P2 Lc] ‖ 00×11 ‖ C`, then
    /// decrypts C with the current IV and makes the command MAC the new IV. Returns the plaintext.
    ///
    /// - Throws: `6985` (plain) when the channel is not open; `6F00` (wrapped with the current IV, the
    ///   channel stays open) when the data field is shorter than the 16-byte MAC — the applet hands its
    ///   MAC check a negative length and its `process()` catches the exception (§9.5); `6982` (plain) on
    ///   a MAC mismatch, after closing the channel — including a data field that is not block-aligned
    ///   (a plain command sent while the channel is open, §9.8); `6F05` (wrapped, with the command MAC as
    ///   IV) when a correctly MAC'd ciphertext is empty or badly padded (the applet's generic handler on
    ///   `CryptoException.ILLEGAL_USE`).
    func unwrap(_ apdu: CommandAPDU) throws(CardStatus) -> [UInt8] {
        if insideV2 { return apdu.data }  // a 4.0 inner command: Secure Channel V2 opened it already
        guard isOpen, let session else { throw .conditionsNotSatisfied }
        let data = apdu.data
        guard data.count >= 16 else { throw .unknown }
        let mac = Array(data.prefix(16))
        let cipher = Array(data.dropFirst(16))
        guard data.count >= 16, cipher.count % 16 == 0,
            let expected = try? ChannelCrypto.mac(apdu.header + scBuffer[16..<27] + cipher, key: session.mac),
            ConstantTime.equal(expected, mac)
        else {
            closeChannel()
            throw .securityStatusNotSatisfied
        }
        let iv = Array(scBuffer[0..<16])
        scBuffer.replaceSubrange(0..<16, with: mac)
        do {
            let plain = try ChannelCrypto.decrypt(cipher, key: session.enc, iv: iv)
            if innerLog != nil { innerCommand = (apdu.header, plain) }
            return plain
        } catch {
            throw .cryptoIllegalUse
        }
    }

    /// `SecureChannel.respond` (§9.5 steps 4–7): encrypts `data ‖ SW` with the current IV, MACs
    /// `[Lr] ‖ 00×15 ‖ C'` and makes that MAC the next IV. Returns `M' ‖ C' ‖ 90 00`.
    func respond(_ data: [UInt8], sw: UInt16) -> [UInt8] {
        guard let session else { return CardStatus(sw).bytes }
        if let innerLog, let command = innerCommand {
            innerLog(command.header, command.data, data + CardStatus(sw).bytes)
        }
        let cipher = ChannelCrypto.encrypt(data + CardStatus(sw).bytes, key: session.enc, iv: Array(scBuffer[0..<16]))
        let lr = UInt8((cipher.count + 16) & 0xFF)
        guard let mac = try? ChannelCrypto.mac([lr] + scBuffer[16..<31] + cipher, key: session.mac) else {
            preconditionFailure("the response MAC input is block-aligned by construction")
        }
        scBuffer.replaceSubrange(0..<16, with: mac)
        return mac + cipher + [0x90, 0x00]
    }

    /// The slot a P1 pairing index names. Indexes ≥ `80` are negative in the applet's arithmetic and end
    /// in an array-index exception (`6F00`); indexes past the table are `6A86` (§8.2).
    func pairingSlot(_ p1: UInt8) throws(CardStatus) -> Int {
        let index = Int(Int8(bitPattern: p1))
        guard index >= 0 else { throw .unknown }
        guard index < state.pairings.count else { throw .incorrectP1P2 }
        return index
    }

    // MARK: OPEN SECURE CHANNEL (10)

    /// §9.1–9.2: plain answer salt ‖ IV; the session keys are installed but the channel opens only with
    /// MUTUALLY AUTHENTICATE. Any previous session and a pending PAIR are dropped first.
    func openSecureChannel(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        pendingPairSlot = nil
        mutuallyAuthenticated = false
        let slot = try pairingSlot(apdu.p1)
        guard let pairingKey = state.pairings[slot] else { throw .incorrectP1P2 }
        guard let shared = ChannelCrypto.ecdh(privateKey: scPrivateKey, peer: apdu.data) else { throw .wrongData }
        let out = random.bytes(48)
        var material = shared.bytesCopy + pairingKey.bytes + out[0..<32]
        var keys = Hash.sha512(material)
        session = (Secret(bytes: keys[0..<32]), Secret(bytes: keys[32..<64]))
        Secret.wipe(&material)
        Secret.wipe(&keys)
        scBuffer = Array(out[32..<48]) + [UInt8](repeating: 0, count: 48)
        return .plain(out)
    }

    // MARK: MUTUALLY AUTHENTICATE (11)

    /// §9.3: the first wrapped command. The authentication flag is set before the payload is read, so a
    /// second MUTUALLY AUTHENTICATE gets a wrapped `6985`; a MAC or length failure closes the channel
    /// with a plain `6982`.
    func mutuallyAuthenticate(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        guard session != nil else { throw .conditionsNotSatisfied }
        let wasAuthenticated = mutuallyAuthenticated
        mutuallyAuthenticated = true
        let data = try unwrap(apdu)
        if wasAuthenticated { throw .conditionsNotSatisfied }
        guard data.count == 32 else {
            closeChannel()
            throw .securityStatusNotSatisfied
        }
        return .wrapped(random.bytes(32))
    }

    // MARK: PAIR (12)

    /// §8.1: two plain steps. Checks: channel open `6985` (wrapped, stale IV), Lc ≠ 32 `6A80`, P1 or
    /// missing step 1 `6A86`, then no free slot `6A84` / wrong client cryptogram `6982`.
    func pair(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        if isOpen { throw .conditionsNotSatisfied }
        guard apdu.data.count == 32, let secret = state.credentials?.pairingSecret.bytes else { throw .wrongData }
        if apdu.p1 == 0x00 {
            pendingPairSlot = nil
            guard let slot = state.pairings.firstIndex(where: { $0 == nil }) else { throw .fileFull }
            pendingPairSlot = slot
            let cryptogram = Hash.sha256(secret + apdu.data)
            let challenge = random.bytes(32)
            scBuffer.replaceSubrange(0..<32, with: challenge)
            return .plain(cryptogram + challenge)
        }
        guard apdu.p1 == 0x01, let slot = pendingPairSlot else { throw .incorrectP1P2 }
        let expected = Hash.sha256(secret + scBuffer[0..<32])
        scBuffer.replaceSubrange(0..<32, with: expected)
        guard ConstantTime.equal(expected, apdu.data) else {
            pendingPairSlot = nil
            throw .securityStatusNotSatisfied
        }
        let salt = random.bytes(32)
        state.pairings[slot] = CardSecret(Hash.sha256(secret + salt))
        pendingPairSlot = nil
        return .plain([UInt8(slot)] + salt)
    }

    // MARK: UNPAIR (13)

    /// §8.2: channel and PIN; a free slot is a no-op.
    func unpair(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        _ = try unwrap(apdu)
        guard isPINValidated else { throw .conditionsNotSatisfied }
        let slot = try pairingSlot(apdu.p1)
        state.pairings[slot] = nil
        return .done
    }
}

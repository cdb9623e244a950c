import WalletCrypto

// The channel layer of the card trace (docs/card-explained.md, "The channel layer"): what each
// secure channel computes, reported to the tracer as steps. Secrets (shared secrets, session
// keys) go through `secretStep`, which keeps their bytes only when revealed.

extension CardTracer {
    /// OPEN SECURE CHANNEL on a 3.x card (docs/keycard-protocol.md §9.2).
    func keyScheduleV1(shared: Secret, pairingKey: Secret, answer: [UInt8], keys: SessionKeys) {
        secretStep(.after, "shared = ECDH-X(client ephemeral private key, card channel key)", shared)
        secretStep(.after, "pairing key (from PAIR: SHA-256(pairing secret ‖ salt of PAIR))", pairingKey)
        step(.after, "salt (the answer's first 32 B)", Array(answer.prefix(32)), role: .salt)
        var k = keys.encryptionKey.withUnsafeBytes { Array($0) } + keys.macKey.withUnsafeBytes { Array($0) }
        defer { Secret.wipe(&k) }
        secretStep(.after, "K = SHA-512(shared ‖ pairing key ‖ salt)", Secret(bytes: k))
        secretStep(.after, "encKey = K[0..32] (AES-256-CBC of every command and answer)", keys.encryptionKey)
        secretStep(.after, "macKey = K[32..64] (AES-256 CBC-MAC)", keys.macKey)
        step(.after, "IV0 (the answer's last 16 B): the IV of the first secured command", keys.iv, role: .iv)
        flushAddendum()
    }

    /// OPEN SECURE CHANNEL on a 4.0 card (docs/keycard-protocol.md §14.2).
    func keyScheduleV2(
        certificate: CardCertificate, salt: [UInt8], digest: [UInt8], shared: Secret, keys: SessionKeysV2
    ) {
        let role: TraceRole? = view.diffable ? .certificate : nil
        step(.after, "identity key from SELECT's certificate", certificate.identityPublicKey.compressed, role: role)
        step(
            .after,
            "CA key recovered from the certificate's signature over SHA-256(identity key): \(CardIdentity.issuerName(certificate.caPublicKey))",
            certificate.caPublicKey.compressed, role: role)
        step(.after, "D = SHA-256(\"sc_v2_ccm\" ‖ salt ‖ client key ‖ card ephemeral key)", digest, role: .random)
        step(
            .after, "the card's signature over D verifies with the identity key",
            note: "ok (high S allowed: the applet does not normalise)")
        secretStep(.after, "X = ECDH-X(client ephemeral private key, card ephemeral key)", shared)
        let prk = Hash.hmacSHA256(key: Secret(bytes: salt), data: shared)
        secretStep(.after, "PRK = HMAC-SHA256(key = salt, X)", prk)
        secretStep(
            .after, "host→card key = OKM[0..16], OKM = HMAC-SHA256(PRK, \"sc_v2_ccm\" ‖ 01) (AES-128-CCM)",
            keys.hostToCard)
        secretStep(.after, "card→host key = OKM[16..32] (AES-128-CCM)", keys.cardToHost)
        step(.after, "counter N = 0 on both sides", note: "nothing of it travels")
        flushAddendum()
    }
}

extension SecureChannel {
    /// §9.4, as `wrap` just did it.
    func traceWrap(_ command: CommandAPDU, iv: [UInt8], ciphertext: [UInt8], lc: UInt8, mac: [UInt8], first: Bool) {
        guard let tracer else { return }
        tracer.step(
            .wrap, first ? "IV = IV0 (from OPEN SECURE CHANNEL)" : "IV = the MAC of the last answer", iv, role: .iv)
        tracer.step(
            .wrap, "C = AES-256-CBC(encKey, IV, pad(\(command.data.count) B)) = \(ciphertext.count) B", ciphertext,
            role: .ciphertext)
        tracer.step(
            .wrap,
            "M = CBC-MAC(macKey, \(spaced(command.header + [lc])) ‖ 00×11 ‖ C) (zero IV; the 11 zeros are not sent)",
            mac, role: .mac)
        tracer.step(
            .wrap, "sent: header, Lc = 16 + \(ciphertext.count) = \(hexByte(lc)), M ‖ C",
            note: "the card checks M before it decrypts")
    }

    /// §9.6, as `unwrap` just did it.
    func traceUnwrap(received: [UInt8], length: Int, plainCount: Int, stale: Bool) {
        guard let tracer else { return }
        tracer.step(
            .unwrap, "M′ = CBC-MAC(macKey, \(hexByte(UInt8(length & 0xFF))) ‖ 00×15 ‖ C′)", received, role: .mac,
            note: "MAC ok: the card holds the same keys")
        tracer.step(
            .unwrap,
            stale
                ? "R = AES-256-CBC⁻¹(encKey, the previous IV, C′): a stale-IV answer (refused before the card read the data)"
                : "R = AES-256-CBC⁻¹(encKey, IV = M, C′), unpadded: \(plainCount) B = data ‖ inner SW")
        tracer.step(.unwrap, "IV ← M′", note: "the next command is encrypted with it")
    }

    /// A plain answer while the channel is open (§9.8).
    func tracePlain(_ sw: UInt16) {
        tracer?.step(
            .unwrap, "plain answer \(hexByte(UInt8(sw >> 8))) \(hexByte(UInt8(sw & 0xFF))) while the channel is open",
            note: sw == StatusWord.securityStatusNotSatisfied ? "the card closed the channel" : "no MAC to check")
    }
}

extension SecureChannelV2 {
    /// §14.3, as `wrap` just did it.
    func traceWrap(_ command: CommandAPDU, sealed: [UInt8]) {
        guard let tracer else { return }
        tracer.step(.wrap, "N = \(counter): nonce = N as 13 bytes big-endian", Self.nonce(counter))
        tracer.step(
            .wrap,
            "inner APDU = \(spaced(command.header)) \(hexByte(UInt8(truncatingIfNeeded: command.data.count))) ‖ data (\(command.data.count + 5) B, Lc always present)"
        )
        tracer.step(
            .wrap,
            "sealed = AES-128-CCM(host→card key, nonce, inner) ‖ tag (8) = \(sealed.count) B, sent in 80 18 00 00",
            sealed, role: .sealed)
    }

    /// §14.3, as `unwrap` just did it.
    func traceUnwrap(plainCount: Int) {
        guard let tracer else { return }
        tracer.step(
            .unwrap, "tag checked and opened with the card→host key, same nonce",
            note: "tag ok: \(plainCount) B = data ‖ inner SW")
        tracer.step(.unwrap, "N ← \(counter)", note: "one more for each round trip")
    }
}

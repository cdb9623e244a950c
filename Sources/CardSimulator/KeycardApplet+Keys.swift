import WalletCrypto

// MARK: - Keys, derivation, signing, export, data (docs/keycard-protocol.md §10.5–§10.12)

extension KeycardApplet {
    /// `m/43'/60'/1581'`, the EIP-1581 prefix of the export policy.
    static let eip1581Prefix: [UInt8] = [0x80, 0x00, 0x00, 0x2B, 0x80, 0x00, 0x00, 0x3C, 0x80, 0x00, 0x06, 0x2D]
    /// Maximum depth of a key path (10 components).
    static let maxPathBytes = 40

    // MARK: LOAD KEY (D0), §10.5

    func loadKey(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = try unwrap(apdu)
        guard isPINValidated else { throw .conditionsNotSatisfied }
        switch apdu.p1 {
        case 0x01, 0x02: try loadKeyPair(data)
        case 0x03: try loadSeed(data)
        default: throw .incorrectP1P2
        }
        state.pinlessPath = []
        return .wrapped(finishKeyLoad())
    }

    /// The A1 template, parsed by offsets exactly as the applet does (an optional `80` public key is
    /// recognised by its tag, the chain code `82` by the tag after the private key). Everything is
    /// checked before anything is stored (the applet's transaction).
    func loadKeyPair(_ d: [UInt8]) throws(CardStatus) {
        func at(_ i: Int) throws(CardStatus) -> UInt8 {
            guard i >= 0 else { throw .unknown }  // a negative offset: array-index exception
            return i < d.count ? d[i] : 0
        }
        func signedLength(_ i: Int) throws(CardStatus) -> Int { Int(Int8(bitPattern: try at(i))) }
        func field(_ offset: Int, _ length: Int) throws(CardStatus) -> [UInt8] {
            guard length > 0, offset + 2 >= 0, offset + 2 + length <= d.count else { throw .wrongData }
            return Array(d[(offset + 2)..<(offset + 2 + length)])
        }
        var pubOffset = try at(1) == 0x81 ? 3 : 2
        var privOffset = pubOffset + (try signedLength(pubOffset + 1)) + 2
        var chainOffset = privOffset + (try signedLength(privOffset + 1)) + 2
        if try at(pubOffset) != 0x80 {
            chainOffset = privOffset
            privOffset = pubOffset
            pubOffset = -1
        }
        guard try at(0) == 0xA1, try at(privOffset) == 0x81 else { throw .wrongData }
        let extended = try at(chainOffset) == 0x82
        let rawPrivate = try field(privOffset, signedLength(privOffset + 1))
        guard rawPrivate.count <= 32,
            let privateKey = try? PrivateKey(bytes: [UInt8](repeating: 0, count: 32 - rawPrivate.count) + rawPrivate)
        else { throw .wrongData }
        var chainCode: [UInt8]?
        if extended {
            guard try signedLength(chainOffset + 1) == 32 else { throw .wrongData }
            chainCode = try field(chainOffset, 32)
        }
        let publicKey: [UInt8]
        if pubOffset >= 0 {
            publicKey = try field(pubOffset, signedLength(pubOffset + 1))
            guard publicKey.count == 65, publicKey[0] == 0x04 else { throw .wrongData }
        } else {
            publicKey = privateKey.publicKey.uncompressed
        }
        state.isExtended = extended
        state.masterKey = MasterKey(privateKey: CardSecret(privateKey.secret.bytesCopy), publicKey: publicKey)
        if let chainCode { state.masterChainCode = CardSecret(chainCode) }
        state.currentPath = []
    }

    /// A BIP39 seed: exactly 64 bytes on 3.0/3.1 (`6A80` otherwise). Master = BIP32 master of the seed.
    func loadSeed(_ seed: [UInt8]) throws(CardStatus) {
        guard seed.count == 64 else { throw .wrongData }
        try loadSeedBytes(seed)
    }

    /// Master = HMAC-SHA512("Bitcoin seed", seed), whatever the seed's length.
    func loadSeedBytes(_ seed: [UInt8]) throws(CardStatus) {
        var i = Hash.hmacSHA512(key: Array("Bitcoin seed".utf8), data: seed)
        defer { Secret.wipe(&i) }
        guard let privateKey = try? PrivateKey(bytes: Array(i[0..<32])) else { throw .wrongData }
        state.isExtended = true
        state.masterKey = MasterKey(
            privateKey: CardSecret(Array(i[0..<32])),
            publicKey: privateKey.publicKey.uncompressed)
        state.masterChainCode = CardSecret(Array(i[32..<64]))
        state.currentPath = []
    }

    /// `generateKeyUIDAndRespond`: recomputes the duress chain code (extended keys only) and the key
    /// UID = SHA-256 of the stored public key; returns the key UID.
    func finishKeyLoad() -> [UInt8] {
        if state.isExtended { state.duressChainCode = CardSecret(Hash.sha256(state.masterChainCode.bytes)) }
        state.keyUID = Hash.sha256(state.masterKey?.publicKey ?? [])
        return state.keyUID
    }

    // MARK: Paths (`updateDerivationPath`)

    /// The absolute path `source` + `path` resolves to, checked in the applet's order: non-extended
    /// key with a non-empty path `6985`; parent of the master `6B00`; PIN-less source with data `6A80`;
    /// unknown source `6A86`; length not a multiple of 4 or depth > 10 `6A80`.
    func resolvePath<C: Collection>(_ path: C, source: UInt8) throws(CardStatus) -> [UInt8] where C.Element == UInt8 {
        guard state.isExtended else {
            if path.isEmpty { return [] }
            throw .conditionsNotSatisfied
        }
        let current = state.currentPath
        let prefix: [UInt8]
        switch source {
        case 0x00:
            prefix = []
        case 0x40:
            guard current.count >= 4 else { throw .wrongP1P2 }
            prefix = Array(current.dropLast(4))
        case 0x80:
            prefix = current
        case 0xC0:
            guard path.isEmpty else { throw .wrongData }
            prefix = state.pinlessPath
        default:
            throw .incorrectP1P2
        }
        guard path.count % 4 == 0, prefix.count + path.count <= Self.maxPathBytes else { throw .wrongData }
        return prefix + path
    }

    /// `doDerive`: CKDpriv along `path` from the master key and the active chain code, leaving key ‖
    /// chain code in the scratch buffer. The empty path only puts the master private key in the first
    /// half (the chain-code half keeps what was there: the master-xpub quirk). A non-hardened first
    /// step hashes the **stored** master public key, as the applet does. Invalid child → `6984`.
    func derive(_ path: [UInt8]) throws(CardStatus) -> PrivateKey {
        guard let master = state.masterKey, let masterKey = try? PrivateKey(bytes: master.privateKey.bytes) else {
            throw .conditionsNotSatisfied
        }
        derivationScratch.replaceSubrange(0..<32, with: master.privateKey.bytes)
        guard !path.isEmpty else { return masterKey }
        var key = masterKey
        var chain = state.duressChainActive ? state.duressChainCode.bytes : state.masterChainCode.bytes
        for offset in stride(from: 0, to: path.count, by: 4) {
            let index = Array(path[offset..<offset + 4])
            var message: [UInt8]
            if index[0] & 0x80 != 0 {
                message = [0] + key.secret.bytesCopy + index
            } else if offset == 0 {
                let w = master.publicKey
                message = [0x02 | (w[64] & 1)] + w[1..<33] + index
            } else {
                message = key.publicKey.compressed + index
            }
            var i = Hash.hmacSHA512(key: chain, data: message)
            Secret.wipe(&message)
            guard let child = try? key.adding(tweak: Array(i[0..<32])) else {
                Secret.wipe(&i)
                throw .dataInvalid
            }
            key = child
            chain = Array(i[32..<64])
            derivationScratch = key.secret.bytesCopy + chain
            Secret.wipe(&i)
        }
        return key
    }

    // MARK: DERIVE KEY (D1), §10.6 — lazy: only records the path

    func deriveKey(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = try unwrap(apdu)
        guard isPINValidated else { throw .conditionsNotSatisfied }
        state.currentPath = try resolvePath(data, source: apdu.p1)
        return .done
    }

    // MARK: GENERATE MNEMONIC (D2), §10.7

    /// P1 = checksum bits 4…8; answers 3·CS word indexes (BIP39 11-bit groups) as 16-bit big-endian.
    func generateMnemonic(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        _ = try unwrap(apdu)
        let cs = Int(Int8(bitPattern: apdu.p1))
        guard (4...8).contains(cs) else { throw .incorrectP1P2 }
        var bits = random.bytes(cs * 4)
        bits.append(Hash.sha256(bits)[0])
        defer { Secret.wipe(&bits) }
        var out: [UInt8] = []
        for word in 0..<(3 * cs) {
            var index = 0
            for bit in (word * 11)..<(word * 11 + 11) { index = index << 1 | Int(bits[bit / 8] >> (7 - bit % 8) & 1) }
            out += [UInt8(index >> 8), UInt8(index & 0xFF)]
        }
        return .wrapped(out)
    }

    // MARK: REMOVE KEY (D3) / GENERATE KEY (D4), §10.8

    func removeKey(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        _ = try unwrap(apdu)
        guard isPINValidated else { throw .conditionsNotSatisfied }
        clearKeys()
        return .done
    }

    func generateKey(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        _ = try unwrap(apdu)
        guard isPINValidated else { throw .conditionsNotSatisfied }
        var seed = random.bytes(64)
        defer { Secret.wipe(&seed) }
        try loadSeed(seed)
        state.pinlessPath = []
        return .wrapped(finishKeyLoad())
    }

    // MARK: SIGN (C0), §10.9

    /// Check order: option bits `6B00` (before the payload: stale IV) → payload (a PIN-less SIGN is
    /// read plain when no channel is open) → no PIN-less path `6A88` → length `6A80` → path → PIN or
    /// PIN-less authorisation and a loaded key `6985` → derivation `6984`.
    func sign(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        var source = apdu.p1 & 0xC0
        var pinless = false
        var makeCurrent = false
        switch apdu.p1 & 0x3F {
        case 0x00: source = 0x80
        case 0x01: break
        case 0x02: makeCurrent = true
        case 0x03:
            pinless = true
            source = 0xC0
        default: throw .wrongP1P2
        }
        let data: [UInt8]
        if pinless && !isOpen { data = apdu.data } else { data = try unwrap(apdu) }
        if pinless && state.pinlessPath.isEmpty { throw .referencedDataNotFound }
        guard data.count >= 32 else { throw .wrongData }
        let path = try resolvePath(data[32...], source: source)
        let isPinlessPath = !state.pinlessPath.isEmpty && path == state.pinlessPath
        guard isPINValidated || pinless || isPinlessPath, state.masterKey != nil else { throw .conditionsNotSatisfied }
        let key = try derive(path)
        let publicKey = key.publicKey.uncompressed
        let signature = try cardSignature(key: key, digest: Array(data[0..<32]))
        let body: [UInt8] = [0xA0, 0x81, UInt8(67 + signature.count), 0x80, 0x41] + publicKey + signature
        if makeCurrent { state.currentPath = path }
        return isOpen ? .wrapped(body) : .plain(body)
    }

    /// The DER signature the applet emits: ECDSA with a random nonce, then `fixS`. The card's raw S is
    /// high about half the time; `fixS` then writes n − S as a fixed 32-byte INTEGER (non-minimal when it
    /// is below 2²⁴⁸, docs/keycard-protocol.md §18); a low raw S keeps the minimal encoding. Which case applies
    /// is drawn from the nonce entropy, so the distribution matches the card's.
    func cardSignature(key: PrivateKey, digest: [UInt8]) throws(CardStatus) -> [UInt8] {
        let entropy = random.bytes(32)
        guard let signature = try? key.sign(digest: digest, extraEntropy: entropy).signature else { throw .unknown }
        let rawWasHigh = entropy[31] & 1 == 1
        return DERCard.signature(r: signature.r, s: signature.s, fixedLengthS: rawWasHigh)
    }

    // MARK: SET PINLESS PATH (C1), §10.10

    func setPinlessPath(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = try unwrap(apdu)
        guard isPINValidated else { throw .conditionsNotSatisfied }
        guard data.count % 4 == 0, data.count <= Self.maxPathBytes else { throw .wrongData }
        state.pinlessPath = data
        return .done
    }

    // MARK: EXPORT KEY (C2), §10.11

    /// Check order: channel; PIN and key `6985`; P2 `6A86`; P1 option `6A86`; path; export policy
    /// (`6985`: private only under EIP-1581, xpub only outside it); derivation `6984`.
    func exportKey(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = try unwrap(apdu)
        guard isPINValidated, state.masterKey != nil else { throw .conditionsNotSatisfied }
        let publicOnly: Bool
        let extendedPublic: Bool
        switch apdu.p2 {
        case 0x00: (publicOnly, extendedPublic) = (false, false)
        case 0x01: (publicOnly, extendedPublic) = (true, false)
        case 0x02: (publicOnly, extendedPublic) = (true, true)
        default: throw .incorrectP1P2
        }
        var source = apdu.p1 & 0xC0
        var makeCurrent = false
        switch apdu.p1 & 0x3F {
        case 0x00: source = 0x80
        case 0x01: break
        case 0x02: makeCurrent = true
        default: throw .incorrectP1P2
        }
        let path = try resolvePath(data, source: source)
        let eip1581 = path.count >= Self.eip1581Prefix.count + 8 && path.starts(with: Self.eip1581Prefix)
        if !(publicOnly || eip1581) || (extendedPublic && eip1581) { throw .conditionsNotSatisfied }
        let key = try derive(path)
        var content: [UInt8]
        if publicOnly {
            content = [0x80, 0x41] + key.publicKey.uncompressed
            if extendedPublic {
                var chain = Array(derivationScratch[32..<64])
                if path.isEmpty && profile.masterXpubChainCode == .masterChainCode {
                    chain = state.duressChainActive ? state.duressChainCode.bytes : state.masterChainCode.bytes
                }
                content += [0x82, 0x20] + chain
            }
        } else {
            content = [0x81, 0x20] + key.secret.bytesCopy
        }
        if makeCurrent { state.currentPath = path }
        return .wrapped([0xA1, UInt8(content.count)] + content)
    }

    // MARK: GET DATA (CA) / STORE DATA (E2), §10.12 (3.1 layout)

    func getData(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let wrapped = isOpen
        if wrapped { _ = try unwrap(apdu) }
        let out: [UInt8]
        switch apdu.p1 {
        case 0x00: out = state.publicData
        case 0x01: out = state.ndefData
        case 0x02: out = state.cashData
        default: throw .incorrectP1P2
        }
        return wrapped ? .wrapped(out) : .plain(out)
    }

    func storeData(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let data = try unwrap(apdu)
        guard isPINValidated else { throw .conditionsNotSatisfied }
        switch apdu.p1 {
        case 0x00:
            guard data.count <= 127 else { throw .wrongData }
            state.publicData = data
        case 0x01:
            guard data.count <= 223 else { throw .wrongData }
            state.ndefData = data
        case 0x02:
            guard data.count <= 127 else { throw .wrongData }
            state.cashData = data
        default:
            throw .incorrectP1P2
        }
        return .done
    }
}

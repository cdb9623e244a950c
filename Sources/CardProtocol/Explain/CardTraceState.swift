import WalletCrypto

/// What the trace knows of the card, from the exchanges it has seen, so it can say what each one
/// changed: "PIN tries 3 → 2", "pairing slot 1 now used", "current path m/44'/60'/0'/0/0"
/// (docs/card-explained.md, "What changed"). Learned only from the bytes, never from the console's
/// own bookkeeping, so a replayed trace says the same.
public struct CardTraceState: Sendable, Equatable {
    public var pinTries: Int?
    public var pukTries: Int?
    public var freeSlots: Int?
    public var keyUID: [UInt8]?
    /// The current key path (`m/…`), when known.
    public var path: String?
    public var pinVerified = false
    public var channelOpen = false
    /// The card's key was made by GENERATE KEY: its UID and every key from it are random (a diffable
    /// trace shows them by role).
    public var keyIsRandom = false

    public init() {}

    /// Takes in one exchange; returns what changed, one fact a line.
    public mutating func apply(
        _ c: TraceCommand, _ a: TraceAnswer, generation: KeycardGeneration, view: TraceView
    ) -> [String] {
        if a.sw == 0x6982, c.command != .pair {
            defer { channelOpen = false }
            return channelOpen ? ["secure channel closed by the card: open it again"] : []
        }
        if a.sw >> 8 == 0x63, a.sw & 0xF0 == 0xC0 { return wrongSecret(c, tries: Int(a.sw & 0x0F)) }
        guard a.sw == 0x9000 else { return [] }
        switch c.command {
        case .select: return selected(a, view: view)
        case .pair where c.p1 == 1: return paired(a)
        case .unpair:
            freeSlots = freeSlots.map { $0 + 1 }
            return ["pairing slot \(c.p1) freed" + (freeSlots.map { " · free pairing slots \($0)" } ?? "")]
        case .openSecureChannel:
            if generation == .v4 {
                channelOpen = true
                return ["secure channel V2 open, counter N = 0"]
            }
            return ["session keys installed; the channel opens when MUTUALLY AUTHENTICATE succeeds"]
        case .mutuallyAuthenticate:
            channelOpen = true
            return ["secure channel open: the card's MAC shows it holds the same session keys"]
        case .verifyPIN:
            pinVerified = true
            return ["PIN verified until SELECT or reset; its try counter is full again"]
        case .unblockPIN:
            pinVerified = true
            return ["PIN unblocked, set to the new value and verified; the PUK's try counter is full again"]
        case .changePIN: return ["PIN changed (still verified)"]
        case .changePUK: return ["PUK changed"]
        case .changePairingSecret:
            return ["pairing secret changed: new PAIRs need the new one, existing pairings keep working"]
        case .getStatus: return status(c, a)
        case .loadKey, .generateKey:
            return keyLoaded(a, generated: c.command == .generateKey, generation: generation, view: view)
        case .removeKey:
            keyIsRandom = false
            keyUID = []
            path = "m"
            return ["key removed: no master key, no key UID; current path m"]
        case .deriveKey: return moved(to: resolve(c, pathBytes: c.data?[...]))
        case .sign where generation == .v3 && c.p1 & 0x03 == 0x02:
            return moved(to: resolve(c, pathBytes: c.data.map { $0.dropFirst(32) }))
        case .exportKey where generation == .v3 && c.p1 & 0x03 == 0x02:
            return moved(to: resolve(c, pathBytes: c.data?[...]))
        case .setPinlessPath:
            guard let d = c.data, let text = pathText(d[...]) else { return [] }
            return d.isEmpty
                ? ["PIN-less path removed"] : ["PIN-less path m/\(text): a SIGN of exactly this path needs no PIN"]
        case .storeData: return ["\(c.p1 == 0 ? "public" : c.p1 == 1 ? "NDEF" : "Cash") data written (\(c.count) B)"]
        case .factoryReset:
            self = CardTraceState()
            return ["card erased: keys, PINs, PUK, pairings and public data gone; select again"]
        case .initialize:
            return ["card initialized: PIN, PUK\(generation == .v3 ? ", pairing secret" : "") set; select again"]
        default: return []
        }
    }

    private mutating func wrongSecret(_ c: TraceCommand, tries: Int) -> [String] {
        let isPUK = c.command == .unblockPIN
        let before = isPUK ? pukTries : pinTries
        if isPUK { pukTries = tries } else { pinTries = tries }
        let what = isPUK ? "PUK" : "PIN"
        var lines = ["\(what) tries \(before.map(String.init) ?? "?") → \(tries) (the card counts before it compares)"]
        if tries == 0 {
            lines.append(isPUK ? "PUK blocked: only FACTORY RESET helps" : "PIN blocked: UNBLOCK PIN with the PUK")
        }
        return lines
    }

    private mutating func selected(_ a: TraceAnswer, view: TraceView) -> [String] {
        var lines: [String] = []
        if channelOpen || pinVerified {
            lines.append("secure channel closed, PIN no longer verified (SELECT resets both)")
        }
        channelOpen = false
        pinVerified = false
        guard let d = a.data, let info = try? ApplicationInfo(selectResponse: d) else { return lines }
        guard info.isInitialized else { return lines + ["card not initialized: only INIT (and IDENTIFY) work"] }
        if let slots = info.freePairingSlots { freeSlots = slots }
        keyUID = info.keyUID
        if let tries = info.pinTriesLeft { pinTries = tries }
        let uid = keyIsRandom && view.diffable ? "<\(TraceRole.keyUID.rawValue)>" : Self.short(info.keyUID, view: view)
        lines.append(info.keyUID.isEmpty ? "no key loaded" : "key loaded, key UID \(uid)")
        return lines
    }

    private mutating func paired(_ a: TraceAnswer) -> [String] {
        guard let d = a.data, d.count == 33 else { return [] }
        let before = freeSlots
        freeSlots = freeSlots.map { max(0, $0 - 1) }
        let slot = d[0] == 0xFF ? "the ephemeral pairing (index FF)" : "pairing slot \(d[0])"
        return ["\(slot) now used" + (before.map { " · free pairing slots \($0) → \(freeSlots ?? $0)" } ?? "")]
    }

    private mutating func status(_ c: TraceCommand, _ a: TraceAnswer) -> [String] {
        guard let d = a.data else { return [] }
        if c.p1 == 1 {
            let before = path
            guard let text = pathText(d[...]) else { return [] }
            path = text.isEmpty ? "m" : "m/" + text
            return before == nil || before == path ? [] : ["current path \(before!) → \(path!)"]
        }
        guard let s = try? ApplicationStatus(response: d) else { return [] }
        var lines: [String] = []
        if let p = pinTries, p != s.pinRetries { lines.append("PIN tries \(p) → \(s.pinRetries)") }
        if let p = pukTries, p != s.pukRetries { lines.append("PUK tries \(p) → \(s.pukRetries)") }
        pinTries = s.pinRetries
        pukTries = s.pukRetries
        return lines
    }

    private mutating func keyLoaded(
        _ a: TraceAnswer, generated: Bool, generation: KeycardGeneration, view: TraceView
    ) -> [String] {
        guard let d = a.data, d.count == 32 else { return [] }
        keyUID = d
        keyIsRandom = generated
        path = "m"
        let uid = generated && view.diffable ? "<\(TraceRole.keyUID.rawValue)>" : Self.short(d, view: view)
        return [
            "key \(generated ? "generated" : "loaded"), key UID \(uid); current path m"
                + (generation == .v3 ? "; PIN-less path cleared" : "")
        ]
    }

    /// The absolute path a DERIVE, SIGN or EXPORT with a source and a path moves to, when known.
    private func resolve(_ c: TraceCommand, pathBytes: ArraySlice<UInt8>?) -> String? {
        guard let bytes = pathBytes, let text = pathText(bytes) else { return nil }
        let tail = text.isEmpty ? [] : text.split(separator: "/").map(String.init)
        let current = path.map { $0 == "m" ? [] : $0.dropFirst(2).split(separator: "/").map(String.init) }
        let base: [String]?
        switch c.p1 & 0xC0 {
        case 0x00: base = []
        case 0x40: base = current.map { Array($0.dropLast()) }
        case 0x80: base = current
        default: base = nil
        }
        guard let base else { return nil }
        let all = base + tail
        return all.isEmpty ? "m" : "m/" + all.joined(separator: "/")
    }

    private mutating func moved(to new: String?) -> [String] {
        guard let new else { return ["current path changed (the path it started from is not in this trace)"] }
        let before = path
        path = new
        return [before.map { "current path \($0) → \(new)" } ?? "current path \(new)"]
    }

    static func short(_ uid: [UInt8], view: TraceView) -> String {
        Hex.encode(uid.prefix(8)).uppercased() + "…"
    }
}

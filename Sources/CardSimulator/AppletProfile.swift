/// A released Keycard applet build the simulator can be (checklist §17 #15). The profile is fixed when a
/// card is created and stored in its state file; the SELECT version bytes alone cannot tell 3.1.0 from
/// 3.1.1/3.1.2 (docs/keycard-protocol.md §1), but the pairing-slot count can.
public struct AppletProfile: Sendable, Hashable, CustomStringConvertible {
    /// What EXPORT KEY P2=02 (xpub) returns as chain code for the empty path (the master key).
    public enum MasterXpubChainCode: String, Sendable, Hashable {
        /// Faithful to 3.1/3.2 (docs/keycard-protocol.md §10.11): the chain-code half of the transient derivation
        /// buffer — zeros after power-up or reset, otherwise the chain code of the key derived last.
        case scratchBuffer
        /// The active (normal or duress) master chain code: what a client would hope for. A deliberate
        /// deviation from the applet, for tests that want a well-defined master xpub.
        case masterChainCode
    }

    /// A known difference between 4.0 builds that all report version `04 00`
    /// (docs/keycard-protocol.md §14.10). The named 4.0 profile is the head build; a variant is
    /// asked for by appending its name to the profile id: `4.0+select-fixed+pin-tries-fixed`.
    public enum BuildVariant: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Before `074a041`/`90942d7`: no EXPORT BIP85 and no ECDH (`6D 00`). The `4.0-early` profile.
        case noBIP85AndECDH = "no-bip85-ecdh"
        /// SELECT's `A4` template with its true length (a release may correct the head's one byte short).
        case selectLengthFixed = "select-fixed"
        /// INIT accepts PIN tries 7 to 10 (the head build fails them with `6F 00`).
        case pinTriesFixed = "pin-tries-fixed"
        /// Before `e49e78e`: Schnorr SIGN takes no tweak (`hash ‖ path`) and signs plain BIP-340.
        case schnorrWithoutTweak = "schnorr-no-tweak"

        public static func < (a: BuildVariant, b: BuildVariant) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// Stable identifier, e.g. `3.1.0` or `4.0+select-fixed`; also what the state file records.
    public let id: String
    /// APPLICATION_VERSION reported by SELECT (tag `02`, two bytes).
    public let version: (major: UInt8, minor: UInt8)
    /// Number of persistent pairing slots.
    public let pairingSlots: Int
    /// Capability byte of SELECT (tag `8D`).
    public let capabilities: UInt8
    /// Behaviour of the master-xpub quirk.
    public let masterXpubChainCode: MasterXpubChainCode

    /// True for a 4.0 build: Secure Channel V2, no pairing (docs/keycard-protocol.md §14).
    public var isVersion4: Bool { version.major >= 4 }

    /// The build variants of this profile, read from its id (`4.0-early` is `no-bip85-ecdh`).
    public var variants: Set<BuildVariant> { Self.parse(id)?.variants ?? [] }

    /// True when the profile is the build `variant`.
    func has(_ variant: BuildVariant) -> Bool { variants.contains(variant) }

    /// A profile with explicit fields (for experiments; the named ones below are the released builds).
    public init(
        id: String, version: (major: UInt8, minor: UInt8), pairingSlots: Int, capabilities: UInt8,
        masterXpubChainCode: MasterXpubChainCode = .scratchBuffer
    ) {
        precondition(
            version.major >= 4 ? pairingSlots == 0 : (1...127).contains(pairingSlots),
            "3.x addresses pairing slots with a signed byte; 4.0 has none")
        self.id = id
        self.version = version
        self.pairingSlots = pairingSlots
        self.capabilities = capabilities
        self.masterXpubChainCode = masterXpubChainCode
    }

    /// Tag 3.1.0: version `03 01`, 5 pairing slots, capabilities `1F`. The default.
    public static let v3_1_0 = AppletProfile(id: "3.1.0", version: (3, 1), pairingSlots: 5, capabilities: 0x1F)
    /// Tag 3.1.1: as 3.1.0 with 100 pairing slots.
    public static let v3_1_1 = AppletProfile(id: "3.1.1", version: (3, 1), pairingSlots: 100, capabilities: 0x1F)
    /// Tag 3.1.2: as 3.1.1 (its atomic key-UID write is not observable); the §16.2 transcript uses it.
    public static let v3_1_2 = AppletProfile(id: "3.1.2", version: (3, 1), pairingSlots: 100, capabilities: 0x1F)

    /// Keycard 4.0 (head `a61616a`): version `04 00`, no pairing slots, capabilities `1F`, Secure
    /// Channel V2.
    public static let v4_0 = AppletProfile(id: "4.0", version: (4, 0), pairingSlots: 0, capabilities: 0x1F)
    /// An earlier 4.0 build (before `074a041`): the same version `04 00`, without EXPORT BIP85 and ECDH,
    /// which it answers `6D 00` (docs/keycard-protocol.md §14).
    public static let v4_0_early = AppletProfile(id: "4.0-early", version: (4, 0), pairingSlots: 0, capabilities: 0x1F)

    /// False for a 4.0 build older than EXPORT BIP85 and ECDH.
    var hasBIP85AndECDH: Bool { !has(.noBIP85AndECDH) }

    /// Every named profile, oldest first.
    public static let all: [AppletProfile] = [.v3_1_0, .v3_1_1, .v3_1_2, .v4_0, .v4_0_early]

    /// The named profile `id` (`3.1.0`, `3.1.1`, `3.1.2`, `4.0`, `4.0-early`), or a 4.0 profile
    /// with build variants (`4.0+select-fixed`, each variant once, in any order); nil if unknown.
    public static func named(_ id: String) -> AppletProfile? {
        guard let (base, variants) = parse(id) else { return nil }
        let extra = variants.subtracting(base.id == v4_0_early.id ? [.noBIP85AndECDH] : [])
        if extra.isEmpty { return base }
        let canonical = ([base.id] + extra.sorted().map(\.rawValue)).joined(separator: "+")
        return AppletProfile(
            id: canonical, version: base.version, pairingSlots: base.pairingSlots,
            capabilities: base.capabilities, masterXpubChainCode: base.masterXpubChainCode)
    }

    /// The named base profile of `id` and every variant it names (the base's own included).
    private static func parse(_ id: String) -> (base: AppletProfile, variants: Set<BuildVariant>)? {
        let parts = id.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        guard let base = all.first(where: { $0.id == parts[0] }) else { return nil }
        var variants: Set<BuildVariant> = base.id == "4.0-early" ? [.noBIP85AndECDH] : []
        for name in parts.dropFirst() {
            guard base.isVersion4, let v = BuildVariant(rawValue: name), variants.insert(v).inserted else { return nil }
        }
        return (base, variants)
    }

    /// What `--profile` accepts, for help and errors.
    /// (Plain loops, no key paths: the builtin tables compute it at every start.)
    public static var namesForHelp: String {
        var text = ""
        for profile in all { text += (text.isEmpty ? "" : ", ") + profile.id }
        text += "; a 4.0 build variant as 4.0+NAME ("
        for (i, variant) in BuildVariant.allCases.enumerated() { text += (i == 0 ? "" : ", ") + variant.rawValue }
        return text + ")"
    }

    /// The same build with another master-xpub behaviour.
    public func with(masterXpubChainCode: MasterXpubChainCode) -> AppletProfile {
        AppletProfile(
            id: id, version: version, pairingSlots: pairingSlots, capabilities: capabilities,
            masterXpubChainCode: masterXpubChainCode)
    }

    public var description: String { "Keycard applet \(id)" }

    public static func == (a: AppletProfile, b: AppletProfile) -> Bool {
        a.id == b.id && a.version == b.version && a.pairingSlots == b.pairingSlots
            && a.capabilities == b.capabilities && a.masterXpubChainCode == b.masterXpubChainCode
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(pairingSlots)
        hasher.combine(masterXpubChainCode)
    }
}

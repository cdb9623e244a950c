import WalletCore
import WalletCrypto

/// The applet version from SELECT tag `02` (docs/keycard-protocol.md §1).
public struct AppletVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Major version (3 for Secure Channel V1 applets).
    public let major: UInt8
    /// Minor version.
    public let minor: UInt8

    /// A version from its two bytes.
    public init(major: UInt8, minor: UInt8) {
        self.major = major
        self.minor = minor
    }

    /// True for 4.0 and later, which speak Secure Channel V2 (§14) instead of V1.
    public var usesSecureChannelV2: Bool { major >= 4 }

    public static func < (a: AppletVersion, b: AppletVersion) -> Bool { (a.major, a.minor) < (b.major, b.minor) }

    /// `3.1`.
    public var description: String { "\(major).\(minor)" }
}

/// The capability bits of SELECT tag `8D` (§5.2).
public struct Capabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The `8D` byte.
    public let rawValue: UInt8
    /// Capabilities from the `8D` byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `01`: Secure Channel.
    public static let secureChannel = Capabilities(rawValue: 0x01)
    /// `02`: key management (LOAD/GENERATE/REMOVE KEY, SIGN, EXPORT).
    public static let keyManagement = Capabilities(rawValue: 0x02)
    /// `04`: credentials management (CHANGE PIN/PUK, UNBLOCK PIN).
    public static let credentialsManagement = Capabilities(rawValue: 0x04)
    /// `08`: NDEF.
    public static let ndef = Capabilities(rawValue: 0x08)
    /// `10`: FACTORY RESET (3.1+).
    public static let factoryReset = Capabilities(rawValue: 0x10)
    /// What a card without tag `8D` is assumed to have (as keycard-go does).
    public static let all: Capabilities = [
        .secureChannel, .keyManagement, .credentialsManagement, .ndef, .factoryReset,
    ]

    /// `secure channel, key management`.
    public var description: String {
        let names: [(Capabilities, String)] = [
            (.secureChannel, "secure channel"), (.keyManagement, "key management"),
            (.credentialsManagement, "credentials management"), (.ndef, "NDEF"), (.factoryReset, "factory reset"),
        ]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "none" : present.joined(separator: ", ")
    }
}

/// What SELECT tells about the card (docs/keycard-protocol.md §5).
///
/// A pre-initialized card (`80 41 <key>`) gives only the key for INIT: no version, UID,
/// slots or capabilities; its capabilities are taken as all, minus the secure channel when
/// the key is absent. An initialized card gives the `A4` template.
public struct ApplicationInfo: Sendable, Equatable, CustomStringConvertible {
    /// False for a blank (pre-initialized) card.
    public let isInitialized: Bool
    /// 16 random bytes identifying this applet instance; empty before INIT. On a 4.0 card, which
    /// has none: the first 16 bytes of SHA-256(compressed identity key), blank or not.
    public let instanceUID: [UInt8]
    /// The card's static secure-channel key (for INIT on a blank card), nil when absent.
    public let secureChannelPublicKey: PublicKey?
    /// The applet version; nil before INIT.
    public let version: AppletVersion?
    /// Free persistent pairing slots; nil before INIT.
    public let freePairingSlots: Int?
    /// SHA-256 of the master public key, empty when no key is loaded.
    public private(set) var keyUID: [UInt8]
    /// The capability bits.
    public let capabilities: Capabilities
    /// 4.0 cards: the identity certificate SELECT carries (3.x cards give it in IDENTIFY).
    public let certificate: CardCertificate?
    /// 4.0 cards: SELECT's status byte (`8C`): `10` initialized, `20` LEE mode, low nibble the
    /// tries left of the PIN in use; nil on 3.x cards.
    public private(set) var statusByte: UInt8?

    /// True for an applet that speaks Secure Channel V2 (4.0 and later): no pairing.
    public var usesSecureChannelV2: Bool { version?.usesSecureChannelV2 ?? false }
    /// 4.0 cards: the tries left of the PIN in use, from the status byte.
    public var pinTriesLeft: Int? { statusByte.map { Int($0 & 0x0F) } }
    /// 4.0 cards: true in LEE mode.
    public var isLEEMode: Bool { (statusByte ?? 0) & 0x20 != 0 }

    /// Parses the SELECT answer data.
    ///
    /// - Throws: `CardError.malformedResponse(command: .select, …)` when the data is neither
    ///   form, a mandatory field is missing, or the key is not a curve point.
    public init(selectResponse data: [UInt8]) throws(CardError) {
        do {
            self = try ApplicationInfo(parsing: data)
        } catch .malformedTLV(let offset, let reason) {
            throw .malformedResponse(command: .select, detail: "TLV error at byte \(offset): \(reason)")
        }
    }

    private init(parsing data: [UInt8]) throws(CardError) {
        guard let first = data.first else {
            throw .malformedResponse(command: .select, detail: "empty answer")
        }
        switch first {
        case 0x80:
            let key = try TLV.parseFirst(data)
            isInitialized = false
            instanceUID = []
            secureChannelPublicKey = try Self.publicKey(key.value)
            version = nil
            freePairingSlots = nil
            keyUID = []
            capabilities = secureChannelPublicKey == nil ? Capabilities.all.subtracting(.secureChannel) : .all
            certificate = nil
            statusByte = nil
        case 0xA4 where Self.isVersion4Template(data):
            self = try Self.parseVersion4(data)
        case 0xA4:
            let fields = try TLV.parseFirst(data).children()
            guard let uid = fields.first(tag: 0x8F) else {
                throw .malformedResponse(command: .select, detail: "the A4 template has no instance UID (8F)")
            }
            guard let key = fields.first(tag: 0x80) else {
                throw .malformedResponse(command: .select, detail: "the A4 template has no secure-channel key (80)")
            }
            // The two 02 fields: the first (2 bytes) is the version, the second (1 byte) the free slots.
            let integers = fields.filter { $0.tag == 0x02 }
            guard let v = integers.first(where: { $0.value.count == 2 }) else {
                throw .malformedResponse(command: .select, detail: "the A4 template has no 2-byte version (02)")
            }
            isInitialized = true
            instanceUID = uid.value
            secureChannelPublicKey = try Self.publicKey(key.value)
            version = AppletVersion(major: v.value[0], minor: v.value[1])
            freePairingSlots = integers.first(where: { $0.value.count == 1 }).map { Int($0.value[0]) }
            keyUID = fields.first(tag: 0x8E)?.value ?? []
            if let caps = fields.first(tag: 0x8D), let bits = caps.value.first {
                capabilities = Capabilities(rawValue: bits)
            } else {
                capabilities = .all
            }
            certificate = nil
            statusByte = nil
        default:
            throw .malformedResponse(
                command: .select,
                detail: "expected 80 (pre-initialized) or A4 (initialized), got \(hexByte(first))")
        }
    }

    private init(
        version4 version: AppletVersion, status: UInt8, keyUID: [UInt8], capabilities: Capabilities,
        certificate: CardCertificate
    ) {
        isInitialized = status & 0x30 != 0
        // A 4.0 card has no instance UID; what kcs keys a card by (key checks, the prompt's label)
        // is the first 16 bytes of SHA-256 of its identity key, which never changes.
        instanceUID = Array(Hash.sha256(certificate.identityPublicKey.compressed).prefix(16))
        secureChannelPublicKey = nil
        self.version = version
        freePairingSlots = nil
        self.keyUID = keyUID
        self.capabilities = capabilities
        self.certificate = certificate
        statusByte = status
    }

    /// The length of the `A4` header: tag and a one-, two- or three-byte length.
    private static func headerLength(_ data: [UInt8]) -> Int? {
        guard data.count >= 2 else { return nil }
        switch data[1] {
        case 0x00...0x7F: return 2
        case 0x81: return 3
        case 0x82: return 4
        default: return nil
        }
    }

    /// A 4.0 template starts with the 2-byte version (`02 02 04 00`); a 3.x one with `8F`.
    private static func isVersion4Template(_ data: [UInt8]) -> Bool {
        guard let h = headerLength(data), data.count >= h + 4 else { return false }
        return data[h] == 0x02 && data[h + 1] == 0x02 && data[h + 2] >= 4
    }

    /// The 4.0 template `A4 { 02 version; 8C status; 8E key UID; 8D capabilities; 8A certificate }`,
    /// read field by field after the header. The applet writes the template's length one byte
    /// short (docs/keycard-protocol.md §14.1), so the outer length is not trusted: each field's
    /// own length is.
    private static func parseVersion4(_ data: [UInt8]) throws(CardError) -> ApplicationInfo {
        var reader = TLVReader(Array(data[headerLength(data)!...]))
        let version = try reader.next(expecting: 0x02).value
        let status = try reader.next(expecting: 0x8C).value
        let keyUID = try reader.next(expecting: 0x8E).value
        let caps = try reader.next(expecting: 0x8D).value
        let cert = try reader.next(expecting: 0x8A).value
        guard version.count == 2, status.count == 1, caps.count == 1, keyUID.isEmpty || keyUID.count == 32 else {
            throw .malformedResponse(command: .select, detail: "a field of the 4.0 template has the wrong length")
        }
        return ApplicationInfo(
            version4: AppletVersion(major: version[0], minor: version[1]), status: status[0], keyUID: keyUID,
            capabilities: Capabilities(rawValue: caps[0]),
            certificate: try CardCertificate(bytes: cert, command: .select))
    }

    private static func publicKey(_ bytes: [UInt8]) throws(CardError) -> PublicKey? {
        if bytes.isEmpty { return nil }
        do {
            return try PublicKey(bytes: bytes)
        } catch {
            throw .malformedResponse(
                command: .select,
                detail: "the secure-channel key is invalid: \(error.description)")
        }
    }

    /// True when a master key is loaded (the key UID is 32 bytes).
    public var hasMasterKey: Bool { !keyUID.isEmpty }

    /// This answer with the key UID a LOAD KEY, GENERATE KEY (`uid`) or REMOVE KEY (empty) left, and
    /// on a 4.0 card the status byte's LEE mode: set by LOAD KEY P1 04 (`leeMode`), cleared by any
    /// other key change (docs/keycard-protocol.md §14.9).
    public func replacingKeyUID(_ uid: [UInt8], leeMode: Bool = false) -> ApplicationInfo {
        var copy = self
        copy.keyUID = uid
        copy.statusByte = statusByte.map { leeMode ? $0 | 0x20 : $0 & ~0x20 }
        return copy
    }

    /// `initialized, applet 3.1, …` without secrets (none are here anyway).
    public var description: String {
        if let certificate, let version {
            let state = isInitialized ? (isLEEMode ? "initialized card (LEE mode)" : "initialized card") : "blank card"
            let key = hasMasterKey ? "key \(keyUID.hex)" : "no key"
            return "\(state), applet \(version), \(key), capabilities: \(capabilities), \(certificate)"
        }
        guard isInitialized else { return "pre-initialized card (blank)" }
        let uid = instanceUID.hex
        let key = hasMasterKey ? "key \(keyUID.hex)" : "no key"
        return "initialized card, applet \(version?.description ?? "?"), instance \(uid), "
            + "\(freePairingSlots.map(String.init) ?? "?") free pairing slots, \(key), capabilities: \(capabilities)"
    }
}

/// GET STATUS P1=00 (docs/keycard-protocol.md §10.1): `A3 { 02 01 pin; 02 01 puk; 01 01 keyLoaded }`.
public struct ApplicationStatus: Sendable, Equatable, CustomStringConvertible {
    /// PIN tries left (of the PIN in use: main, or duress after a duress login).
    public let pinRetries: Int
    /// PUK tries left.
    public let pukRetries: Int
    /// True when a master key is loaded.
    public let keyInitialized: Bool

    /// A status from its parts.
    public init(pinRetries: Int, pukRetries: Int, keyInitialized: Bool) {
        self.pinRetries = pinRetries
        self.pukRetries = pukRetries
        self.keyInitialized = keyInitialized
    }

    /// Parses the `A3` template; unknown trailing fields are ignored.
    public init(response data: [UInt8]) throws(CardError) {
        do throws(CardError) {
            let template = try TLV.parseFirst(data)
            guard template.tag == 0xA3 else {
                throw CardError.malformedResponse(
                    command: .getStatus,
                    detail: "expected template A3, got \(hexByte(template.tag))")
            }
            var reader = TLVReader(template.value)
            let pin = try reader.next(expecting: 0x02)
            let puk = try reader.next(expecting: 0x02)
            let key = try reader.next(expecting: 0x01)
            guard pin.value.count == 1, puk.value.count == 1, key.value.count == 1 else {
                throw CardError.malformedResponse(command: .getStatus, detail: "each status field must be 1 byte")
            }
            self = ApplicationStatus(
                pinRetries: Int(pin.value[0]), pukRetries: Int(puk.value[0]),
                keyInitialized: key.value[0] == 0xFF)
        } catch .malformedTLV(let offset, let reason) {
            throw .malformedResponse(command: .getStatus, detail: "TLV error at byte \(offset): \(reason)")
        }
    }

    /// `PIN 3 tries, PUK 5 tries, key loaded`.
    public var description: String {
        "PIN \(pinRetries) tries left, PUK \(pukRetries) tries left, \(keyInitialized ? "key loaded" : "no key")"
    }
}

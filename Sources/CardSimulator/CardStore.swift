import Foundation
import WalletCore
import WalletCrypto

/// The on-disk form of one simulated card: `<directory>/<name>.json`, mode 0600, replaced atomically
/// (`AtomicFile.write`) so it is never half-written. It holds the card's whole EEPROM, secrets included,
/// and is the only place those secrets are written.
struct CardFile: Codable {
    /// Marks the file as ours.
    static let kind = "kcs.simulated-keycard"

    /// The profile fields, stored in full so a card keeps its build even if the named profiles change.
    struct Profile: Codable {
        var id: String
        var versionMajor: UInt8
        var versionMinor: UInt8
        var pairingSlots: Int
        var capabilities: UInt8
        var masterXpubChainCode: String

        init(_ p: AppletProfile) {
            id = p.id
            versionMajor = p.version.major
            versionMinor = p.version.minor
            pairingSlots = p.pairingSlots
            capabilities = p.capabilities
            masterXpubChainCode = p.masterXpubChainCode.rawValue
        }

        var profile: AppletProfile? {
            guard let quirk = AppletProfile.MasterXpubChainCode(rawValue: masterXpubChainCode),
                versionMajor >= 4 ? pairingSlots == 0 : (1...127).contains(pairingSlots)
            else { return nil }
            return AppletProfile(
                id: id, version: (versionMajor, versionMinor), pairingSlots: pairingSlots,
                capabilities: capabilities, masterXpubChainCode: quirk)
        }
    }

    var kind: String
    var format: Int
    var profile: Profile
    var card: CardState
}

/// Naming, paths, reading and writing of card files in a cards directory.
enum CardStore {
    /// 1–64 characters `A–Z a–z 0–9 . _ -`, not starting with `.` or `-` (no hidden files, no options,
    /// no path separators).
    static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), let first = name.utf8.first, first != UInt8(ascii: "."),
            first != UInt8(ascii: "-")
        else { return false }
        return name.utf8.allSatisfy { c in
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        }
    }

    static func path(for name: String, in directory: String) throws(SimulatorError) -> String {
        guard isValidName(name) else { throw .invalidCardName(name: name) }
        return (directory.hasSuffix("/") ? directory : directory + "/") + name + ".json"
    }

    /// Creates `directory` (mode 0700) when missing; fails when it is not a directory. Removes the
    /// temporary files a killed writer left behind (`AtomicFile.removeStaleTemporaries`): they hold
    /// a card's secrets in clear.
    static func prepare(_ directory: String) throws(SimulatorError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .directoryUnusable(path: directory, reason: "not a directory") }
            AtomicFile.removeStaleTemporaries(in: directory)
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .directoryUnusable(path: directory, reason: (error as NSError).localizedDescription)
        }
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    static func read(_ path: String) throws(SimulatorError) -> (AppletProfile, CardState) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .stateUnreadable(path: path, reason: "the file cannot be read")
        }
        let file: CardFile
        do {
            file = try JSONDecoder().decode(CardFile.self, from: data)
        } catch {
            throw .stateUnreadable(path: path, reason: "not a simulated card state file (\(describe(error)))")
        }
        guard file.kind == CardFile.kind else {
            throw .stateUnreadable(path: path, reason: "kind is \"\(file.kind)\", expected \"\(CardFile.kind)\"")
        }
        guard file.format == 1 else { throw .stateUnreadable(path: path, reason: "unknown format \(file.format)") }
        guard let profile = file.profile.profile else {
            throw .stateUnreadable(path: path, reason: "invalid applet profile")
        }
        if let problem = check(file.card, profile: profile) { throw .stateUnreadable(path: path, reason: problem) }
        return (profile, file.card)
    }

    static func write(_ state: CardState, profile: AppletProfile, to path: String) throws(SimulatorError) {
        let file = CardFile(kind: CardFile.kind, format: 1, profile: .init(profile), card: state)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(file))
        } catch {
            throw .stateWriteFailed(path: path, reason: describe(error))
        }
        defer { Secret.wipe(&bytes) }
        do {
            try AtomicFile.write(bytes, to: path, mode: 0o600)
        } catch {
            throw .stateWriteFailed(path: path, reason: error.description)
        }
    }

    /// The first inconsistency of a decoded state (lengths the applet relies on), or nil.
    static func check(_ s: CardState, profile: AppletProfile) -> String? {
        if profile.isVersion4 {
            // A 4.0 card: no instance UID, channel key, pairings or pairing secret; an identity.
            if !s.instanceUID.isEmpty || !s.pairings.isEmpty { return "a 4.0 card has no instance UID nor pairings" }
            if s.identity == nil { return "a 4.0 card needs its identity" }
        } else {
            if s.instanceUID.count != 16 { return "instance UID must be 16 bytes" }
            if (try? PrivateKey(bytes: s.secureChannelKey.bytes)) == nil { return "invalid secure-channel key" }
        }
        if s.pairings.count != profile.pairingSlots { return "pairing table does not match the profile" }
        if s.pairings.contains(where: { ($0?.bytes.count ?? 32) != 32 }) { return "pairing keys must be 32 bytes" }
        if let c = s.credentials {
            if c.pin.value.bytes.count != 6 || c.duressPIN.value.bytes.count != 6 || c.puk.value.bytes.count != 12
                || c.pairingSecret.bytes.count != (profile.isVersion4 ? 0 : 32)
            {
                return "credentials have wrong lengths"
            }
        }
        if let k = s.masterKey {
            if (try? PrivateKey(bytes: k.privateKey.bytes)) == nil || k.publicKey.count != 65 {
                return "invalid master key"
            }
        }
        if s.masterChainCode.bytes.count != 32 || s.duressChainCode.bytes.count != 32 || s.keyUID.count != 32 {
            return "chain codes and key UID must be 32 bytes"
        }
        for path in [s.currentPath, s.pinlessPath] where path.count % 4 != 0 || path.count > 40 {
            return "invalid key path"
        }
        return nil
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing field \(key.stringValue)"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c),
            DecodingError.dataCorrupted(let c):
            c.codingPath.map(\.stringValue).joined(separator: ".") + ": " + c.debugDescription
        default: String(describing: error)
        }
    }
}

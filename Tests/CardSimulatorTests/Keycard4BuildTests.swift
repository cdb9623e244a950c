// The 4.0 builds that all say 04 00 (docs/keycard-protocol.md §14.10) and the segmented NDEF file
// of GET DATA / STORE DATA (§14.11), on the simulated card through the kcs client: the profile
// names of the build variants, what each variant changes on the wire, how the client copes, and
// the NDEF segments byte for byte. Source: the Keycard 4.0 protocol notes, A1, A6.12–A6.13, A11.
import CardProtocol
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@testable import CardSimulator

@Suite("Keycard 4.0 builds and NDEF segments")
struct Keycard4BuildTests {
    static let pin = Secret(bytes: Array("123456".utf8))
    static let puk = Array("123456789012".utf8)
    static let duress = Array("654321".utf8)

    /// A provisioned card of `profile` with a selected client and an open channel, not initialized.
    func opened(_ profile: AppletProfile) throws -> (SimulatedCard, KeycardCommandSet) {
        let card = SimulatedCard(profile: profile)
        try card.provisionIdentity(
            certificate: Keycard4Recording.certificate,
            privateKey: Keycard4Recording.identityPrivateKey)
        let client = KeycardCommandSet(transport: card, random: SeededRandom(seed: 9))
        try client.select()
        try client.openSecureChannelV2()
        return (card, client)
    }

    /// INIT through the raw command, so tries the client itself refuses (7…10) can be sent.
    func initialize(_ client: KeycardCommandSet, pinTries: UInt8) throws -> UInt16 {
        let data = Array("123456".utf8) + Self.puk + [pinTries, 5] + Self.duress
        return try client.transmit(CommandAPDU(ins: 0xFE, data: data), route: .secure).sw
    }

    @Test func variantNames_combineOnFourZeroOnly_andRoundTripThroughTheCardFile() throws {
        let fixed = try #require(AppletProfile.named("4.0+pin-tries-fixed+select-fixed"))
        #expect(fixed.id == "4.0+select-fixed+pin-tries-fixed", "canonical order")
        #expect(fixed.variants == [.selectLengthFixed, .pinTriesFixed])
        #expect(fixed.version == (4, 0) && fixed.isVersion4)
        #expect(AppletProfile.named("4.0")?.variants == [])
        #expect(AppletProfile.named("4.0-early")?.variants == [.noBIP85AndECDH])
        #expect(AppletProfile.named("4.0+no-bip85-ecdh")?.hasBIP85AndECDH == false)
        #expect(AppletProfile.named("4.0-early+schnorr-no-tweak")?.variants == [.noBIP85AndECDH, .schnorrWithoutTweak])
        for bad in [
            "3.1.0+select-fixed", "4.0+select-fixed+select-fixed", "4.0+fast", "4.0+", "5.0", "4.0-early+no-bip85-ecdh",
        ] {
            #expect(AppletProfile.named(bad) == nil, "\(bad)")
        }
        // A card made with variants keeps them in its state file.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-variant-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = try SimulatedCard.open(named: "v", in: dir, profile: fixed)
        let again = try SimulatedCard.open(named: "v", in: dir)
        #expect(again.applet.profile == fixed && again.applet.profile.variants == fixed.variants)
    }

    @Test func selectLength_isOneShortOnTheHeadBuild_trueOnSelectFixed_andTheClientReadsBoth() throws {
        var answers: [String: [UInt8]] = [:]
        for id in ["4.0", "4.0+select-fixed"] {
            let card = SimulatedCard(profile: try #require(AppletProfile.named(id)))
            try card.provisionIdentity(
                certificate: Keycard4Recording.certificate,
                privateKey: Keycard4Recording.identityPrivateKey)
            let answer = try card.transmit([0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.keycardInstance)
            answers[id] = answer
            let info = try KeycardCommandSet(transport: card).select()
            #expect(info.usesSecureChannelV2 && info.certificate?.bytes == Keycard4Recording.certificate, "\(id)")
        }
        let head = try #require(answers["4.0"]), fixed = try #require(answers["4.0+select-fixed"])
        #expect(head.count == fixed.count && head.count - 4 == 0x70)
        #expect(Array(head.prefix(2)) == [0xA4, 0x6F] && Array(fixed.prefix(2)) == [0xA4, 0x70])
        #expect(Array(head.dropFirst(2)) == Array(fixed.dropFirst(2)), "only the length byte differs")
    }

    @Test func pinTries7to10_fail6F00OnTheHeadBuild_leavingItBlank_andWorkOnPinTriesFixed() throws {
        let (head, headClient) = try opened(.v4_0)
        #expect(try initialize(headClient, pinTries: 8) == 0x6F00)
        #expect(try headClient.select().isInitialized == false, "the card stays blank")
        #expect(head.applet.state.credentials == nil)
        try headClient.openSecureChannelV2()
        #expect(try initialize(headClient, pinTries: 11) == 0x6A80, "outside 2…10 on either build")

        let (_, client) = try opened(try #require(AppletProfile.named("4.0+pin-tries-fixed")))
        #expect(try initialize(client, pinTries: 8) == 0x9000)
        #expect(try client.select().pinTriesLeft == 8)
        // The client keeps to 2…6 whatever the build (it cannot tell the builds apart).
        #expect(throws: CardError.self) {
            try InitParametersV2(
                pin: Self.pin, puk: Secret(bytes: Self.puk), duressPIN: Secret(bytes: Self.duress), pinRetries: 8)
        }
    }

    @Test func schnorrWithoutTweak_signsPlainBIP340OfHashAndPath_andTheClientRefusesAnotherKey() throws {
        let card = SimulatedCard(profile: try #require(AppletProfile.named("4.0+schnorr-no-tweak")))
        let client = try loggedIn(card, clientSeed: 5)
        let seed = try Mnemonic(
            phrase: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
        ).seed()
        try client.loadKey(seed: seed)
        let master = try ExtendedKey.master(seed: seed)
        let digest = Hash.sha256(Array("old build".utf8))

        // What that build expects: hash ‖ path, signed with the plain (untweaked) key at the path.
        let path = try DerivationPath("m/86'/0'/0'/0/0")
        let raw = try client.transmit(
            CommandAPDU(
                ins: 0xC0, p1: 0x01, p2: 0x03,
                data: digest + path.components.flatMap { withUnsafeBytes(of: $0.raw.bigEndian, Array.init) }),
            route: .secure)
        #expect(raw.sw == 0x9000)
        let internalKey = try master.derive(path).publicKey
        let plain = try CardSchnorrSignature(
            response: raw.data, digest: digest, tweak: [UInt8](repeating: 0, count: 32),
            expectedKey: internalKey)
        #expect(Hex.encode(plain.outputKey.bytes) == "cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115")

        // A head-build client sends hash ‖ tweak ‖ path: 32 bytes more of path. Five levels + 8 is
        // too deep (6A 80); one level + 8 signs with the key at m/0/…/0/1, which the client refuses.
        #expect(throws: CardError.wrongData(command: .sign)) {
            try client.signSchnorrV2(
                digest: digest, tweak: Hash.tagged("TapTweak", internalKey.xOnly.key.bytes), path: path,
                expectedKey: internalKey)
        }
        let short = try DerivationPath("m/1")
        let refused = #expect(throws: CardError.self) {
            try client.signSchnorrV2(
                digest: digest, tweak: [UInt8](repeating: 0, count: 32), path: short,
                expectedKey: try master.derive(short).publicKey)
        }
        guard case .malformedResponse(.sign, let detail) = refused else {
            Issue.record("\(String(describing: refused))")
            return
        }
        #expect(detail.contains("signed with another key than the one at the path"), "\(detail)")
        // The same answer without a key to compare with verifies — under the wrong key: why the check exists.
        let other = try client.signSchnorrV2(digest: digest, tweak: [UInt8](repeating: 0, count: 32), path: short)
        #expect(other.publicKey == (try master.derive("m/0/0/0/0/0/0/0/0/1").publicKey))
    }

    @Test func ndefFile_isWrittenInChunks_andReadIn244ByteSegments_byteForByte() throws {
        let card = SimulatedCard(profile: .v4_0)
        let client = try loggedIn(card, clientSeed: 6)
        func getData(p2: UInt8) throws -> ResponseAPDU {
            try client.transmit(CommandAPDU(ins: 0xCA, p1: 0x01, p2: p2), route: .secure)
        }
        // A blank NDEF file reads as its zero length.
        #expect(try client.readNDEFFile() == [0, 0])
        #expect(try getData(p2: 0).data == [0, 0])
        #expect(try getData(p2: 1).sw == 0x6A86, "at or past NLEN + 2")

        // 302 bytes: one segment of 244, then the 58 left (offset 244 = 4 · 61).
        let record = (0..<300).map { UInt8((5 * $0 + 1) % 256) }
        let file: [UInt8] = [0x01, 0x2C] + record
        try client.writeNDEFFile(file)
        #expect(try getData(p2: 0).data == Array(file[0..<244]))
        #expect(try getData(p2: 61).data == Array(file[244...]))
        #expect(try getData(p2: 76).sw == 0x6A86)  // offset 304 ≥ 302
        #expect(try client.readNDEFFile() == file)

        // Exactly 2 · 244: the second segment is full too, and the next offset is past the end.
        let full: [UInt8] = [0x01, 0xE6] + (0..<486).map { UInt8($0 % 251) }
        try client.writeNDEFFile(full)
        #expect(try getData(p2: 61).data.count == 244)
        #expect(try getData(p2: 122).sw == 0x6A86)
        #expect(try client.readNDEFFile() == full)

        // STORE DATA: past byte 512 (508 + 5) 6A 80; another slot 6A 86; the client refuses a file whose NLEN
        // does not match before sending anything.
        #expect(
            try client.transmit(CommandAPDU(ins: 0xE2, p1: 0x01, p2: 127, data: [1, 2, 3, 4, 5]), route: .secure).sw
                == 0x6A80)
        #expect(try client.transmit(CommandAPDU(ins: 0xE2, p1: 0x03, data: [1]), route: .secure).sw == 0x6A86)
        #expect(throws: CardError.self) { try client.writeNDEFFile([0x00, 0x05, 1, 2]) }
        #expect(throws: CardError.self) { try client.writeNDEFFile([0x02, 0x00] + [UInt8](repeating: 0, count: 512)) }
        #expect(try client.readNDEFFile() == full, "nothing was written")

        // A lying card: an NLEN beyond the 512-byte file is a malformed answer, not a long read.
        _ = try client.transmit(CommandAPDU(ins: 0xE2, p1: 0x01, data: [0xFF, 0xFF]), route: .secure)
        #expect(
            throws: CardError.malformedResponse(
                command: .getData, detail: "NDEF length 65535 exceeds the 512-byte file")
        ) {
            try client.readNDEFFile()
        }

        // The NDEF file survives FACTORY RESET; the public data does not.
        try client.writeNDEFFile(file)
        try client.storeData([7, 7, 7])
        try client.factoryReset()
        #expect(card.applet.state.ndefData.prefix(302) == ArraySlice(file))
        #expect(card.applet.state.publicData.isEmpty)
    }

    @Test func storeData_needsThePIN_andGetDataOnlyTheChannel() throws {
        let card = SimulatedCard(profile: .v4_0)
        let client = try loggedIn(card, clientSeed: 7)
        try client.writeNDEFFile([0x00, 0x02, 0xD1, 0x01])
        try client.storeData([1, 2, 3])
        try client.select()
        try client.openSecureChannelV2()
        #expect(try client.readNDEFFile() == [0x00, 0x02, 0xD1, 0x01])
        #expect(try client.getData() == [1, 2, 3])
        #expect(throws: CardError.conditionsNotSatisfied(command: .storeData)) {
            try client.writeNDEFFile([0x00, 0x00])
        }
        #expect(throws: CardError.conditionsNotSatisfied(command: .storeData)) { try client.storeData([9]) }
    }
}

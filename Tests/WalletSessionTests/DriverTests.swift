// The rotation and discovery drivers of the application layer, run directly in Swift against a
// real store in a temporary home (no interpreter, no binary).
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

private let abandonAbout =
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

private final class Home {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-drivers-\(UUID().uuidString)").path
    let session: Session
    init() {
        session = Session(
            home: path, environment: ["KCS_VAULT_PASSPHRASE": "pw"], random: SeededRandom(seed: 9),
            vaultParameters: .insecureForTesting())
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var store: WalletStore { get throws { try session.unlockedStore() } }

    @discardableResult
    func addECDSA(_ name: String, byte: UInt8) throws -> KeyRecord {
        let key = try PrivateKey(bytes: [UInt8](repeating: byte, count: 32))
        return try store.addKey(
            NewKey(
                name: name, kind: .ecdsa, source: .privkey, storage: .software, publicKey: key.publicKey,
                address: EthereumAddress(publicKey: key.publicKey).checksummed),
            secret: .privateKey(Secret(bytes: [UInt8](repeating: byte, count: 32))))
    }

    /// "abandon … about" as HD master `words` with its child `words-0` at m/44'/60'/0'/0/0.
    func addAbandonAbout() throws {
        let root = try ExtendedKey.master(seed: try Mnemonic(phrase: abandonAbout).seed())
        let master = try store.addKey(
            NewKey(
                name: "words", kind: .hdMaster, source: .mnemonic, storage: .software,
                publicKey: root.publicKey, path: DerivationPath(absolute: true, [])),
            secret: .mnemonic(Secret(utf8: abandonAbout)))
        let path = try DerivationPath("m/44'/60'/0'/0/0")
        let child = try root.derive(path).publicKey
        _ = try store.addKey(
            NewKey(
                name: "words-0", kind: .hdChild, source: .mnemonic, storage: .software, publicKey: child,
                address: EthereumAddress(publicKey: child).checksummed, path: path, parentID: master.id,
                preset: "metamask"))
    }
}

@Suite("Rotation and discovery drivers of the application layer")
struct DriverTests {
    @Test func rotation_ecdsa_completesInOneCall_retiresTheOld_andTheActiveKeyFollows() throws {
        let home = Home()
        try home.addECDSA("hot", byte: 0x11)
        home.session.activeKey = "hot"
        let store = try home.store
        let begun = try store.beginRotation(ofKeyNamed: "hot")
        let done = try home.session.advanceRotation(
            begun.id, successorName: "hot-2", yes: true, skipConfirm: true,
            store: store)
        #expect(done.state == .completed && done.newKeyName == "hot-2")
        #expect(try store.key(named: "hot").retired)
        #expect(home.session.activeKey == "hot-2")
        // The successor signs; the old key's secret is gone.
        let signed = try home.session.sign(
            SigningRequest(
                digest: [UInt8](repeating: 1, count: 32), payload: .digest, kind: .hash,
                signer: SignerChoice(key: .stored("hot-2"))))
        #expect(signed.verified)
        #expect(throws: (any Error).self) { try store.openSecret(named: "hot") }
    }

    @Test func rotation_batchWithoutYes_staysAtSuccessorCreated_thenResumes() throws {
        let home = Home()
        try home.addECDSA("hot", byte: 0x22)
        let store = try home.store
        let begun = try store.beginRotation(ofKeyNamed: "hot")
        #expect(throws: RotationCommandError.self) {
            try home.session.advanceRotation(begun.id, successorName: nil, yes: false, skipConfirm: true, store: store)
        }
        #expect(try store.rotation(id: begun.id).state == .successorCreated)
        #expect(try store.openSecret(named: "hot").kind == .privkey)  // the old secret is intact
        // `rotation.resume ID --successor NAME` once the successor exists: refused, nothing moves.
        let successor = try #require(try store.rotation(id: begun.id).newKeyName)
        #expect(throws: RotationCommandError.successorExists(rotationID: begun.id, successor: successor)) {
            try home.session.resumeRotation(
                begun.id, successorName: "other", yes: true, skipConfirm: true, operation: "rotation.resume")
        }
        #expect(
            RotationCommandError.successorExists(rotationID: begun.id, successor: successor).rendered(
                by: "rotation.resume")
                == "rotation.resume: --successor does not apply here: rotation \(begun.id) already has its successor \(successor)"
        )
        #expect(try store.rotation(id: begun.id).state == .successorCreated)
        let done = try home.session.advanceRotation(
            begun.id, successorName: nil, yes: true, skipConfirm: true,
            store: store)
        #expect(done.state == .completed)
        #expect(try store.pendingRotations().isEmpty)
    }

    @Test func rotation_hdMaster_newMnemonicShownOnce_childrenAtTheSamePaths_wrongWordRollsBack() throws {
        let home = Home()
        try home.addAbandonAbout()
        let store = try home.store
        // A wrong word: nothing of the new mnemonic is kept and the rotation is rolled back.
        let wrong = ScriptedPrompts(["nope", "nope"])
        home.session.prompts = wrong
        let first = try store.beginRotation(ofKeyNamed: "words")
        #expect(throws: KeyCommandError.self) {
            try home.session.advanceRotation(
                first.id, successorName: "fresh", yes: true, skipConfirm: false, store: store)
        }
        #expect(wrong.shown.contains("Write these 12 words down"))
        #expect(try store.findKey(named: "fresh") == nil)
        #expect(try store.pendingRotations().isEmpty)

        // Skipping the confirmation: master and child at the old child's path, named after it.
        home.session.prompts = nil
        let second = try store.beginRotation(ofKeyNamed: "words")
        let done = try home.session.advanceRotation(
            second.id, successorName: "fresh", yes: true, skipConfirm: true,
            store: store)
        #expect(done.state == .completed)
        let children = try store.children(ofKeyNamed: "fresh")
        #expect(children.map(\.name) == ["fresh-0"])
        #expect(children.first?.path?.description == "m/44'/60'/0'/0/0")
        #expect(children.first?.address != "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")  // a new mnemonic
    }

    @Test func discovery_softwareKey_findsTheUsedAddresses_storesThem_andSelectAddsTheChild() throws {
        let home = Home()
        try home.addAbandonAbout()
        home.session.activeKey = "words"
        let root = try ExtendedKey.master(seed: try Mnemonic(phrase: abandonAbout).seed())
        func address(_ account: UInt32, _ index: UInt32) throws -> EthereumAddress {
            EthereumAddress(
                publicKey: try root.derive(DerivationPath.bip44(coin: 60, account: account, change: 0, index: index))
                    .publicKey)
        }
        // MetaMask's first address for this phrase (published), and two more used ones.
        #expect(try address(0, 0).checksummed == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        let used = [try address(0, 0), try address(0, 7), try address(1, 3)]
        let records = try home.session.discoverAccounts(
            onCard: false, keyName: nil, coin: try SLIP44.coin(index: 60),
            history: AddressListHistory(used), gap: 20, maxAccounts: 20)
        #expect(records.map(\.path.description) == ["m/44'/60'/0'/0/0", "m/44'/60'/0'/0/7", "m/44'/60'/1'/0/3"])
        #expect(records.map(\.address) == used.map(\.checksummed))
        #expect(try home.store.discoveredAddresses().count == 3)

        let selected = try #require(try home.session.selectDiscovered(used[2]))
        #expect(!selected.onCard && selected.path.description == "m/44'/60'/1'/0/3")
        #expect(home.session.activeKey == selected.record.name)
        #expect(selected.record.kind == .hdChild && selected.record.address == used[2].checksummed)
        #expect(try home.session.selectDiscovered(address(2, 0)) == nil)
    }
}

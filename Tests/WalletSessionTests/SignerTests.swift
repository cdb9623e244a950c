// The signers of the application layer, tested directly in Swift: the software signer and the
// card signer return one `Signed`, checked and recorded in the history the same way, and the
// session chooses between them. Expected values are published vectors, not our own output:
// - BIP-39 "abandon … about" at m/44'/60'/0'/0/0 is 0x9858EfFD232B4033E47d90003D41EC34EcaEda94
//   (the address MetaMask and every BIP-44 wallet show for that phrase);
// - EIP-155's example transaction, signed with 0x4646…46, has r = 0x28ef…6276,
//   s = 0x67cb…6d83 and v = 37 (https://eips.ethereum.org/EIPS/eip-155), that is recovery id 0.
import CardProtocol
import CardSimulator
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto
import WalletStore

@testable import WalletSession

private let abandonAbout =
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
private let metaMaskAddress = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
private let metaMaskPath = "m/44'/60'/0'/0/0"

/// A batch session on a temporary home (vault passphrase from the environment).
private final class Home {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-signer-\(UUID().uuidString)").path
    let session: Session

    init() {
        session = Session(
            home: path, environment: ["KCS_VAULT_PASSPHRASE": "pw"], vaultParameters: .insecureForTesting())
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var store: WalletStore { get throws { try session.unlockedStore() } }

    /// An HD master from "abandon … about" and its MetaMask child, named `child`.
    func importAbandonAbout() throws {
        let store = try self.store
        let seed = try Mnemonic(phrase: abandonAbout).seed()
        let root = try ExtendedKey.master(seed: seed)
        let master = try store.addKey(
            NewKey(name: "words", kind: .hdMaster, source: .mnemonic, storage: .software, publicKey: root.publicKey),
            secret: .mnemonic(Secret(utf8: abandonAbout)))
        let path = try DerivationPath(metaMaskPath)
        let child = try root.derive(path).publicKey
        _ = try store.addKey(
            NewKey(
                name: "child", kind: .hdChild, source: .mnemonic, storage: .software, publicKey: child,
                address: EthereumAddress(publicKey: child).checksummed, path: path, parentID: master.id))
    }

    /// The ECDSA key of EIP-155's example, named `eip155`.
    func importEIP155Key() throws {
        let bytes = [UInt8](repeating: 0x46, count: 32)
        let key = try PrivateKey(bytes: bytes)
        _ = try store.addKey(
            NewKey(
                name: "eip155", kind: .ecdsa, source: .privkey, storage: .software, publicKey: key.publicKey,
                address: EthereumAddress(publicKey: key.publicKey).checksummed),
            secret: .privateKey(Secret(bytes: bytes)))
    }

    /// A simulated card with "abandon … about" loaded, logged in through the session.
    func connectCardWithAbandonAbout() throws -> CardLink {
        let card = SimulatedCard(random: SeededRandom(seed: 51))
        let setup = KeycardCommandSet(transport: card, random: SeededRandom(seed: 52))
        try setup.select()
        try setup.initialize(
            try InitParameters(
                pin: Secret(utf8: "123456"), puk: Secret(utf8: "987654321098"),
                pairingSecret: PairingSecret(password: PairingSecret.defaultPassword)))
        let link = try CardLink(medium: .simulator(card), name: "sim:t", random: SeededRandom(seed: 53))
        session.card = link
        _ = try session.login(
            pin: Secret(utf8: "123456"),
            CardLoginRequest { PairingSecret(password: PairingSecret.defaultPassword) })
        _ = try link.commands.loadKey(seed: try Mnemonic(phrase: abandonAbout).seed())
        return link
    }
}

@Suite("Signers: one signature type, checked and recorded the same way")
struct SignerTests {
    @Test func softwareHDChild_signsWithTheDerivedKey_andRecordsIt() throws {
        let home = Home()
        try home.importAbandonAbout()
        let digest = Hash.keccak256(Array("kcs".utf8))
        let choice = SignerChoice(key: .stored("child"))
        #expect(try home.session.signer(for: choice) is SoftwareSigner)
        let signed = try home.session.sign(
            SigningRequest(digest: digest, payload: .digest, kind: .message, signer: choice))
        #expect(signed.signer == metaMaskAddress)
        #expect(signed.path?.description == metaMaskPath)
        #expect(signed.verified && signed.checkedAgainst == "the stored key, by recovery")
        #expect(try signed.signature.recoverPublicKey(digest: digest) == signed.publicKey)
        #expect(signed.signature.v == 27 + signed.signature.recoveryID)
        let history = try home.store.history(HistoryQuery(keyName: "child"))
        #expect(history.count == 1)
        #expect(history.first?.kind == .message && history.first?.digest == digest)
        #expect(history.first?.signer == metaMaskAddress && history.first?.verified == true)
    }

    @Test func softwareECDSA_reproducesEIP155sSignature() throws {
        let home = Home()
        try home.importEIP155Key()
        let hash = try Hex.decode("daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53")
        let signed = try home.session.sign(
            SigningRequest(
                digest: hash, payload: .digest, kind: .transaction, chainID: 1,
                signer: SignerChoice(key: .stored("eip155"))))
        #expect(Hex.encode(signed.signature.r) == "28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276")
        #expect(Hex.encode(signed.signature.s) == "67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83")
        #expect(signed.signature.recoveryID == 0 && signed.signature.v == 27)  // EIP-155's v 37 = 0 + 35 + 2·1
        #expect(try home.store.history(HistoryQuery(keyName: "eip155")).first?.chainID == 1)
    }

    @Test func card_derivedKey_isCheckedAgainstTheCardsExport_andRecordedUnderTheCard() throws {
        let home = Home()
        let card = try home.connectCardWithAbandonAbout()
        let path = try DerivationPath(metaMaskPath)
        let digest = Hash.keccak256(Array("kcs on a card".utf8))
        // No card key is stored: the card signs under its UID's name, at the path from the master.
        let signer = try CardSigner(session: home.session, record: nil, place: .masterPath(path))
        let signed = try home.session.sign(SigningRequest(digest: digest, payload: .digest, kind: .hash), with: signer)
        #expect(signed.signer == metaMaskAddress)
        #expect(signed.verified && signed.checkedAgainst == "the key exported from the card")
        #expect(signed.path == path)
        #expect(signed.keyName == "card-" + card.shortUID)
        #expect(try signed.signature.recoverPublicKey(digest: digest) == signed.publicKey)
        let row = try #require(try home.store.history(HistoryQuery(keyName: "card-" + card.shortUID)).first)
        #expect(row.signer == metaMaskAddress && row.digest == digest && row.verified)
    }

    @Test func choice_cardKeyGoesToTheCard_pinlessWithoutAName_andNoKeyIsNamed() throws {
        let home = Home()
        try home.importEIP155Key()
        let card = try home.connectCardWithAbandonAbout()
        let master = try ExtendedKey.master(seed: try Mnemonic(phrase: abandonAbout).seed()).publicKey
        _ = try home.store.addKey(
            NewKey(
                name: "card-key", kind: .card, source: .card,
                storage: .card(instanceUID: card.instanceUID), publicKey: master))
        let session = home.session
        #expect(try session.signer(for: SignerChoice(key: .stored("card-key"))).keyName == "card-key")
        // --pinless without --key: the card, whatever the active key is.
        session.activeKey = "eip155"
        #expect(try session.signer(for: SignerChoice(place: .pinless)) is CardSigner)
        // --key names a software key: the card's options are refused, naming the option.
        #expect(throws: CardKeyError.needsCardSigner(option: "pinless", name: "eip155")) {
            try session.signer(for: SignerChoice(key: .stored("eip155"), place: .pinless))
        }
        #expect(throws: CardKeyError.needsCardSigner(option: "path", name: "eip155")) {
            try session.signer(
                for: SignerChoice(
                    key: .stored("eip155"), place: .cardPath(try CardPathRequest("m/0"), makeCurrent: false)))
        }
        #expect(try session.signer(for: SignerChoice(key: .stored("eip155"))) is SoftwareSigner)
        // The active card key with a path: the card, at the path resolved against its current one.
        session.activeKey = "card-key"
        let atPath = try #require(
            try session.signer(
                for: SignerChoice(place: .cardPath(try CardPathRequest("m/44'/60'/0'/0/0"), makeCurrent: false)))
                as? CardSigner)
        #expect(atPath.derivedPath?.description == metaMaskPath)
        #expect(EthereumAddress(publicKey: try atPath.publicKey()).checksummed == metaMaskAddress)
        session.activeKey = nil
        #expect(throws: KeyCommandError.noActiveKey) {
            try session.signer(for: SignerChoice())
        }
    }

    /// A signature is recorded only once the caller's last step with it succeeded (`finish`): the
    /// answer `qr.sign` builds failed after "y" and left a history row no one ever received.
    @Test func signature_isRecordedOnlyAfterTheCallersLastStep() throws {
        let home = Home()
        let key = try PrivateKey(bytes: Hex.decode("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"))
        _ = try home.store
        let request = SigningRequest(
            digest: [UInt8](repeating: 7, count: 32), payload: .digest, kind: .hash,
            signer: SignerChoice(key: .given(key, path: nil)))
        struct AnswerFailed: Error {}
        #expect(throws: AnswerFailed.self) {
            _ = try home.session.sign(request) { _ in throw AnswerFailed() }
        }
        #expect(try home.store.historyCount() == 0)
        let signed = try home.session.sign(request)
        #expect(signed.signer == "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
        #expect(
            signed.keyName == signed.signer && signed.verified && signed.checkedAgainst == "the given key, by recovery")
        #expect(try home.store.historyCount() == 1)
    }

    @Test func card_keyOfAnotherCard_isRefusedBeforeAnythingIsSent() throws {
        let home = Home()
        let card = try home.connectCardWithAbandonAbout()
        let other = try home.store.addKey(
            NewKey(
                name: "elsewhere", kind: .card, source: .card,
                storage: .card(instanceUID: String(repeating: "ab", count: 16)),
                publicKey: try PrivateKey(bytes: [UInt8](repeating: 7, count: 32)).publicKey))
        #expect(throws: CardKeyError.otherCard(name: "elsewhere", keyCard: "abababab", connected: card.shortUID)) {
            try home.session.signer(for: SignerChoice(key: .stored("elsewhere")))
        }
    }
}

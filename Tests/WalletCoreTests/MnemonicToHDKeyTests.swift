// Mnemonic → seed → BIP-32 master, end to end. Sources: bip39.json — trezor/python-mnemonic
// vectors.json (`bip32_xprv` of each English vector, passphrase "TREZOR"), bip32JP test_JP_BIP39.json,
// ethers.js testcases/mnemonics.json.gz (`nodes` for en and ja). See the `_sources` of Vectors/*.json.
import Foundation
import KCSTestSupport
import Testing
import WalletCore

private let bip39 = Vectors.json("bip39.json")

@Suite("Mnemonic to BIP-32 master key")
struct MnemonicToHDKeyTests {
    @Test("trezor English vectors: seed → xprv", arguments: bip39.objects("english"))
    func english_seedToMasterXprv_matches(_ row: JSON) throws {
        let m = try Mnemonic(phrase: row.string("mnemonic"))
        let master = try ExtendedKey.master(seed: m.seed(passphrase: row.string("passphrase")))
        #expect(try master.serialized() == row.string("bip32_xprv"))
    }

    @Test("bip32JP Japanese vectors: seed → xprv", arguments: bip39.object("japanese_bip32JP").objects("cases"))
    func japanese_seedToMasterXprv_matches(_ row: JSON) throws {
        let m = try Mnemonic(phrase: row.string("mnemonic"))
        let master = try ExtendedKey.master(seed: m.seed(passphrase: row.string("passphrase")))
        #expect(try master.serialized() == row.string("bip32_xprv"))
    }

    @Test(
        "ethers.js mnemonics: every node of every phrase", arguments: bip39.object("ethers_mnemonics").objects("cases"))
    func ethers_phraseToNodes_match(_ row: JSON) throws {
        let m = try Mnemonic(phrase: row.string("phrase_utf8"))
        let seed = m.seed(passphrase: row.string("password_utf8"))
        #expect(seed.withUnsafeBytes { Hex.encode($0) } == normHex(row.string("seed")))
        let master = try ExtendedKey.master(seed: seed)
        for node in row.objects("nodes") {
            let key = try master.derive(node.string("path"))
            #expect(try key.serialized() == node.string("xpriv"), "\(node.string("path"))")
            #expect(key.publicString == node.string("xpub"), "\(node.string("path"))")
            #expect(String(format: "%08x", key.fingerprint) == normHex(node.string("fingerprint")))
        }
    }
}

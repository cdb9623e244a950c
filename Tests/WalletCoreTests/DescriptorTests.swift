// Output descriptors (BIP-380–386, BIP-389) against embit, which kcs did not write: the checksum
// and the addresses of every kind kcs writes — pkh, sh(wpkh), wpkh, tr, and wsh / sh(wsh) / sh of
// sortedmulti and multi — on both paths of a multipath descriptor, for two seeds and both chains;
// the text read back unchanged; a wrong checksum refused.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private func master(_ seed: UInt8) throws -> ExtendedKey {
    try ExtendedKey.master(seed: Secret(bytes: [UInt8](repeating: seed, count: 32)))
}

private func account(_ m: ExtendedKey, _ path: String, steps: [[UInt32]] = [[0, 1]]) throws -> DescriptorKey {
    let p = try DerivationPath(path)
    return DescriptorKey(
        origin: KeyOrigin(fingerprint: m.fingerprint, path: p), extended: try m.derive(p).neutered, steps: steps,
        wildcard: .unhardened)
}

@Suite("Descriptors against embit")
struct DescriptorTests {
    @Test(arguments: [(UInt8(1), BitcoinChain.main), (UInt8(2), BitcoinChain.test)])
    func singleKeyAndMultisigDescriptors_checksumsAndAddresses_matchEmbit(seed: UInt8, chain: BitcoinChain) throws {
        let m = try master(seed), c = chain.coinType
        let a = try master(seed + 10), b = try master(seed + 20)
        let ms = "m/48'/\(c)'/0'/2'"
        let descriptors = [
            Descriptor(kind: .pkh, key: try account(m, "m/44'/\(c)'/0'")),
            Descriptor(kind: .shWpkh, key: try account(m, "m/49'/\(c)'/0'")),
            Descriptor(kind: .wpkh, key: try account(m, "m/84'/\(c)'/0'")),
            Descriptor(kind: .tr, key: try account(m, "m/86'/\(c)'/0'")),
            Descriptor(
                kind: .wsh, threshold: 2, keys: [try account(m, ms), try account(a, ms), try account(b, ms)],
                sorted: true),
            Descriptor(
                kind: .shWsh, threshold: 2, keys: [try account(m, ms), try account(a, ms), try account(b, ms)],
                sorted: true),
            Descriptor(kind: .sh, threshold: 1, keys: [try account(m, ms), try account(a, ms)], sorted: false),
        ]
        let version: ExtendedKeyVersion = chain == .main ? .xpub : .tpub
        let network = chain == .main ? "main" : "test"
        for d in descriptors {
            let text = try d.text(version: version)
            #expect(try Descriptor(text) == d, "\(text)")
            #expect(try Descriptor(text).text(version: version) == text)
            for branch in 0..<2 {
                let ours = try (0..<3).map {
                    chain.network.address(of: try d.script(index: UInt32($0), alternative: branch))
                }
                let embit = try BitcoinOracle.run(
                    "embit_descriptor",
                    ["descriptor": text, "network": network, "indexes": [0, 1, 2], "branch": branch])
                #expect(embit["checksum"] as? String == String(text.split(separator: "#")[1]), "\(text)")
                #expect(embit["addresses"] as? [String] == ours.compactMap { $0 }, "\(d.kind) branch \(branch)")
            }
        }
    }

    @Test func wrongChecksum_andUnknownShapes_areRefused() throws {
        let d = Descriptor(kind: .wpkh, key: try account(try master(3), "m/84'/0'/0'", steps: [[0]]))
        let text = try d.text()
        let body = String(text.split(separator: "#")[0])
        #expect(throws: DescriptorError.self) { try Descriptor(body + "#qqqqqqqq") }
        #expect(try Descriptor(body) == d)
        #expect(throws: DescriptorError.self) { try Descriptor("combo(\(body.dropFirst(5).dropLast()))") }
        #expect(throws: DescriptorError.self) { try Descriptor("wsh(multi(3,\(body.dropFirst(5).dropLast())))") }
        // BIP-380's example: the checksum of a bare address descriptor.
        #expect(DescriptorChecksum.of("addr(mkmZxiEcEd8ZqjQWVZuC6so5dFMKEFpN2j)") == "02wpgw69")
    }
}

private let descriptorVectors = Vectors.json("bitcoin/descriptors.json")

/// BIP-380's checksum and key-expression vectors and BIP-386's tr() vectors
/// (Vectors/bitcoin/descriptors.json; its `_sources` name the BIP texts).
@Suite("Descriptor vectors (BIP-380, BIP-386)")
struct DescriptorVectorTests {
    @Test func bip380Checksums() {
        for v in descriptorVectors.object("bip380").array("checksum") {
            #expect(DescriptorChecksum.verify(v.string("expression")) == v.bool("valid"), "\(v.string("description"))")
        }
    }

    @Test func bip380KeyExpressions_readInsidePkh_orRefused() {
        for v in descriptorVectors.object("bip380").array("validKeyExpressions") {
            #expect((try? Descriptor("pkh(\(v.string("expression")))")) != nil, "\(v.string("description"))")
        }
        for v in descriptorVectors.object("bip380").array("invalidKeyExpressions") {
            #expect((try? Descriptor("pkh(\(v.string("expression")))")) == nil, "\(v.string("description"))")
        }
    }

    @Test func bip386KeyPathDescriptors_giveTheirScripts_andInvalidOnesAreRefused() throws {
        for v in descriptorVectors.object("bip386").array("valid") {
            let text = v.string("descriptor")
            guard !text.contains(",") else { continue }  // script trees: kcs reads key-path tr() only
            let d = try Descriptor(text)
            let scripts = try v.strings("scriptPubKeys").indices.map { Hex.encode(try d.script(index: UInt32($0))) }
            #expect(scripts == v.strings("scriptPubKeys"), "\(text)")
        }
        for v in descriptorVectors.object("bip386").array("invalid") {
            #expect((try? Descriptor(v.string("expression"))) == nil, "\(v.string("description"))")
        }
    }
}

private let vectors381to385 = Vectors.json("bitcoin/descriptors_381_385.json")

extension DescriptorVectorTests {
    /// BIP-381–383's vectors (Vectors/bitcoin/descriptors_381_385.json) of the kinds kcs reads —
    /// pkh, wpkh, sh(wpkh), and wsh / sh(wsh) / sh of multi and sortedmulti — give their scripts;
    /// every invalid vector is refused (the kinds kcs does not read, pk, combo, raw, addr and bare
    /// multi, are refused by name).
    @Test func bip381to383_scriptsOfTheKindsKcsReads_andInvalidRefused() throws {
        let read = [
            "pkh(", "wpkh(", "sh(wpkh(", "wsh(multi(", "wsh(sortedmulti(", "sh(wsh(multi(", "sh(wsh(sortedmulti(",
            "sh(multi(", "sh(sortedmulti(",
        ]
        var checked = 0
        for bip in ["bip381", "bip382", "bip383", "bip385"] {
            for v in vectors381to385.object(bip).array("valid") {
                let text = v.string("descriptor")
                guard read.contains(where: { text.hasPrefix($0) }) else {
                    #expect((try? Descriptor(text)) == nil, "\(text) is a kind kcs does not read")
                    continue
                }
                let d = try Descriptor(text)
                let scripts = try v.strings("scriptPubKeys").indices.map { Hex.encode(try d.script(index: UInt32($0))) }
                #expect(scripts == v.strings("scriptPubKeys"), "\(text)")
                checked += 1
            }
            for v in vectors381to385.object(bip).array("invalid") {
                #expect((try? Descriptor(v.string("expression"))) == nil, "\(v.string("description"))")
            }
        }
        #expect(checked >= 15)
    }
}

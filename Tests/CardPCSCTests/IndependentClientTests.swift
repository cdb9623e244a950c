// Protocol fidelity judged by someone else's code: keycard-py (PyPI `keycard` 0.4.0, an
// independent Python client for applets 3.x and 4.x) drives a blank simulated card through the
// real stack — libpcsclite → pcscd → vpcd → `kcs sim attach` — and every answer it reads is
// compared here with values computed by kcs's own wallet core or fixed by the applet's
// protocol (docs/keycard-protocol.md). The client runs unchanged from
// `tools/keycard-py/check.py`; `make test` installs it in .build/keycard-venv.
import CardProtocol
import CardSimulator
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

extension RealPCSCD {
    @Suite("An independent client (keycard-py) against the simulator")
    struct IndependentClientTests {
        static var python: String { TestPaths.root.appendingPathComponent(".build/keycard-venv/bin/python").path }

        /// Runs check.py against the reader (at most 60 s) and returns its `NAME value` lines as a
        /// map. Its output goes to files, as `BatchHome.run` does, so a long traceback cannot fill a
        /// pipe nobody reads.
        static func runClient(
            reader: String, script: String = "check.py", arguments: [String] = []
        ) throws -> [String: String] {
            guard FileManager.default.isExecutableFile(atPath: python) else {
                throw ClientError(text: "no keycard-py at \(python): run `make test` (it creates .build/keycard-venv)")
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kcs-keycard-py-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let out = folder.appendingPathComponent("out"), err = folder.appendingPathComponent("err")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            FileManager.default.createFile(atPath: err.path, contents: nil)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: python)
            let tools = TestPaths.root.appendingPathComponent("tools/keycard-py")
            p.arguments = [tools.appendingPathComponent(script).path, reader] + arguments
            var env = ProcessInfo.processInfo.environment
            env["PYTHONPATH"] = tools.path  // its `smartcard` module stands in for pyscard
            p.environment = env
            p.standardOutput = try FileHandle(forWritingTo: out)
            p.standardError = try FileHandle(forWritingTo: err)
            try p.runWithSignalsUnblocked()
            let timedOut = !p.waitForExit(within: 60)
            terminate(p)
            let text = try String(contentsOf: out, encoding: .utf8)
            let errors = try String(contentsOf: err, encoding: .utf8)
            guard !timedOut else {
                throw ClientError(text: "\(script) did not end within 60 s; it printed:\n\(text)\(errors)")
            }
            guard p.terminationStatus == 0 else {
                throw ClientError(text: "\(script) exited \(p.terminationStatus): \(text)\(errors)")
            }
            var lines: [String: String] = [:]
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
                lines[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            return lines
        }

        /// The BIP-32 master of BIP-39's "abandon … about" (12 words, no passphrase), computed by kcs's wallet core.
        static func abandonMaster() throws -> ExtendedKey {
            try ExtendedKey.master(
                seed: Mnemonic(
                    phrase:
                        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
                ).seed())
        }

        struct ClientError: Error, CustomStringConvertible {
            let text: String
            var description: String { text }
        }

        @Test func keycardPy_fullSession_readsWhatTheAppletWouldSay() throws {
            let r = try withAttachedSimulator(card: "keycard-py") { _, reader, _ in try Self.runClient(reader: reader) }

            // A blank card: pre-initialised SELECT (only the card's public key), then INIT.
            #expect(r["blank.initialized"] == "False")
            #expect(r["blank.publicKey"]?.count == 130 && r["blank.publicKey"]?.hasPrefix("04") == true, "\(r)")
            #expect(r["init"] == "None")
            #expect(r["version"] == "3.1")
            #expect(r["freeSlots"] == "5")
            #expect(r["instanceUID"]?.count == 32, "\(r)")
            #expect(r["keyUID"] == "")  // no key yet
            #expect(r["capabilities"] == "31")  // secure channel, key and credentials management, NDEF, factory reset
            #expect(r["pair.slot"] == "0")
            #expect(r["open"] == "None")

            // PIN tries, as GET STATUS reports them to this client.
            #expect(r["status"] == "{'pin_retry_count': 3, 'puk_retry_count': 5, 'initialized': False}")
            #expect(r["verify.wrong"] == "False")
            #expect(r["status.afterWrong"] == "{'pin_retry_count': 2, 'puk_retry_count': 5, 'initialized': False}")
            #expect(r["verify"] == "True")

            // The seed of BIP-39's "abandon … about": the key UID is SHA-256 of the master public key,
            // and the exported public key is the published first MetaMask account.
            let master = try Self.abandonMaster()
            #expect(r["loadSeed"] == Hex.encode(Hash.sha256(master.publicKey.uncompressed)))
            let account = try master.derive("m/44'/60'/0'/0/0")
            #expect(r["exportPublic.key"] == Hex.encode(account.publicKey.uncompressed))
            let exportedHex = try #require(r["exportPublic.key"])
            let exported = try PublicKey(bytes: try Hex.decode(exportedHex))
            #expect(EthereumAddress(publicKey: exported).checksummed == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")

            // SIGN with a derivation path: r‖s and the recovery id the client worked out verify
            // against that key; deriving for one signature leaves the current path at the master.
            let digest = Hash.sha256(Array("independent client".utf8))
            let compactHex = try #require(r["signWithPath.signature"])
            let compact = try Hex.decode(compactHex)
            let recoveryText = try #require(r["signWithPath.recoveryID"])
            let recoveryID = try #require(UInt8(recoveryText))
            let signature = try RecoverableSignature(
                signature: try ECDSASignature(compact: compact), recoveryID: recoveryID)
            #expect(try signature.recoverPublicKey(digest: digest) == exported)
            #expect(Secp256k1.verify(signature.signature, digest: digest, publicKey: exported))
            #expect(r["signWithPath.publicKey"] == r["exportPublic.key"])
            #expect(r["keyPath.afterSignWithPath"] == "[]")

            // Private keys leave the card only under EIP-1581 (m/43'/60'/1581'/…).
            #expect(r["exportPrivate.outsideEIP1581"] == "SW=6985")
            let walletKey = try master.derive("m/43'/60'/1581'/0/0")
            let expectedPrivate = try #require(walletKey.privateKey).secret.withUnsafeBytes { Hex.encode(Array($0)) }
            #expect(r["exportPrivate.EIP1581.key"] == expectedPrivate)

            #expect(r["storeData"] == "None")
            #expect(r["getData"] == Hex.encode(Array("kcs fidelity".utf8)))

            // Three wrong PINs block it (63 C0); the PUK, wrong then right, unblocks it with a new PIN.
            #expect(r["verify.wrong1"] == "False" && r["verify.wrong2"] == "False")
            #expect(r["verify.wrong3"] == "SW=63C0")
            #expect(r["status.blocked"] == "{'pin_retry_count': 0, 'puk_retry_count': 5, 'initialized': True}")
            #expect(r["verify.whileBlocked"] == "SW=63C0")
            #expect(r["unblock.wrongPUK"] == "SW=63C4")
            #expect(r["unblock"] == "None")
            #expect(r["verify.afterUnblock"] == "True")

            // The duress PIN (by default the PUK's first 6 digits on 3.1) selects the duress chain
            // code, SHA-256 of the master's: same master key, other children; the main PIN switches back.
            #expect(r["verify.duress"] == "True")
            let duressMaster = try ExtendedKey(
                privateKey: try #require(master.privateKey), chainCode: Hash.sha256(master.chainCode))
            #expect(
                r["exportPublic.duress.key"]
                    == Hex.encode(try duressMaster.derive("m/44'/60'/0'/0/0").publicKey.uncompressed))
            #expect(r["exportPublic.duress.key"] != r["exportPublic.key"])
            #expect(r["verify.main"] == "True")
            #expect(r["exportPublic.main.key"] == r["exportPublic.key"])

            // No key: SIGN is refused with 69 85.
            #expect(r["removeKey"] == "None")
            #expect(r["sign.withoutKey"] == "SW=6985")

            // UNPAIR of its own slot: the session goes on until the next SELECT; then the slot is empty.
            #expect(r["unpair"] == "None")
            #expect(r["status.afterUnpair"] == "{'pin_retry_count': 3, 'puk_retry_count': 5, 'initialized': False}")
            #expect(r["open.afterUnpair"] == "SW=6A86")
        }

        /// keycard-py's Secure Channel V2 against a simulated 4.0 card (tools/keycard-py/check4.py):
        /// its handshake, CCM wrapping, INIT with a duress PIN, PIN counters, keys, ECDSA and Schnorr
        /// SIGN with full paths, the export policy, CHANGE PIN and FACTORY RESET — checked here with
        /// kcs's own wallet core and BIP-86's published key.
        @Test func keycardPy_version4Session() throws {
            let ca = Hex.encode(IdentityCertificate.simulatorCA.publicKey.compressed)
            let r = try withAttachedSimulator(card: "keycard-py-4", profile: "4.0") { _, reader, _ in
                try Self.runClient(reader: reader, script: "check4.py", arguments: [ca])
            }
            #expect(r["version"] == "4.0", "\(r)")
            #expect(r["blank.initialized"] == "False" && r["blank.status"] == "0")
            #expect(r["init"] == "None")
            #expect(r["initialized"] == "True" && r["status.byte"] == "19")  // 0x13: initialized, 3 tries
            #expect(r["open"] == "None")
            #expect(r["verify.wrong"] == "False")
            #expect(r["status.afterWrong"] == "{'pin_retry_count': 2, 'puk_retry_count': 5, 'initialized': False}")
            #expect(r["verify"] == "True")

            let master = try Self.abandonMaster()
            #expect(r["loadSeed"] == Hex.encode(Hash.sha256(master.publicKey.uncompressed)))
            let account = try master.derive("m/44'/60'/0'/0/0")
            #expect(r["exportPublic.key"] == Hex.encode(account.publicKey.uncompressed))
            let digest = Hash.sha256(Array("independent client 4.0".utf8))
            let compact = try Hex.decode(try #require(r["signWithPath.signature"]))
            #expect(
                Secp256k1.verify(try ECDSASignature(compact: compact), digest: digest, publicKey: account.publicKey))
            #expect(r["signWithPath.publicKey"] == r["exportPublic.key"])
            // BIP-340 with a zero tweak, by BIP-86's internal key of "abandon … about" at m/86'/0'/0'/0/0.
            let taprootKey = try master.derive("m/86'/0'/0'/0/0").publicKey.xOnly.key
            #expect(Hex.encode(taprootKey.bytes) == "cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115")
            #expect(
                taprootKey.verifySchnorr(try Hex.decode(try #require(r["signSchnorr.signature"])), message: digest),
                "\(r)")
            // A third verifier, btclib's pure-Python BIP-340 (in check4.py), with BIP-86's published keys:
            // the plain signature under the internal key, the TapTweak one under the output key only.
            #expect(r["signSchnorr.bip340.internal"] == "True")
            #expect(r["signTaproot.bip340.output"] == "True" && r["signTaproot.bip340.internal"] == "False", "\(r)")
            let outputKey = try XOnlyPublicKey(
                bytes: Hex.decode("a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c"))
            #expect(outputKey.verifySchnorr(try Hex.decode(try #require(r["signTaproot.signature"])), message: digest))
            let chat = try master.derive("m/43'/60'/1581'/0'/0")
            #expect(
                r["exportPrivate.EIP1581.key"]
                    == (try #require(chat.privateKey)).secret.withUnsafeBytes { Hex.encode(Array($0)) })
            #expect(r["exportPrivate.outsideEIP1581"] == "SW=6985")
            // BIP-85 (m/83696968'/39'/0'/12'/0', 16 bytes): HMAC-SHA512("bip-entropy-from-k", k), k from kcs's BIP-32.
            let bip85Key = try #require(try master.derive("m/83696968'/39'/0'/12'/0'").privateKey)
            let bip85 = bip85Key.secret.withUnsafeBytes {
                Hash.hmacSHA512(key: Array("bip-entropy-from-k".utf8), data: Array($0))
            }
            #expect(r["exportBIP85.entropy"] == Hex.encode(bip85.prefix(16)))
            // A 488-byte NDEF file through keycard-py's 220-byte chunks and its segmented read (two
            // segments of exactly 244: docs/keycard-protocol.md §14.11).
            let ndef: [UInt8] = [0x01, 0xE6] + (0..<486).map { UInt8((7 * $0 + 3) % 256) }
            #expect(r["storeNDEF"] == "None")
            #expect(r["getNDEF.equal"] == "True" && r["getNDEF.sha256"] == Hex.encode(Hash.sha256(ndef)), "\(r)")
            #expect(r["changePIN"] == "None")
            #expect(r["verify.oldPIN"] == "False" && r["verify.newPIN"] == "True")
            // Three wrong PINs block it; the PUK (wrong, then right) unblocks it with a new PIN.
            #expect(r["verify.wrong1"] == "False" && r["verify.wrong2"] == "False")
            #expect(r["verify.wrong3"] == "SW=63C0")
            #expect(r["status.blocked"] == "{'pin_retry_count': 0, 'puk_retry_count': 5, 'initialized': True}")
            #expect(r["unblock.wrongPUK"] == "SW=63C4")
            #expect(r["unblock"] == "None")
            #expect(r["verify.afterUnblock"] == "True")
            #expect(r["factoryReset"] == "None")
            #expect(r["afterReset.status"] == "0")
        }
    }
}

// Two-party keys through the real binary (issue 16 §2–3): a co-signer (`kcs cosigner serve`,
// started and stopped by its PID) and a console in two homes pair, make a joint HD key, derive a
// child, sign a message (checked by eth-keys, code kcs did not write) and an EIP-1559 transaction
// that the py-evm node mines from the joint address; both histories hold the signatures; with the
// co-signer gone, a key generation fails naming the address and stores nothing.
import EthRPC
import Foundation
import KCSTestSupport
import Testing

@Suite("Two-party keys between two kcs processes", .serialized)
struct TwoPartyConsoleTests {
    /// A co-signer serving at a terminal (it asks before each co-signature) from `cosignerHome`,
    /// paired with `console`, and the address of a joint key `joint` made with it.
    static func terminalCosigner(_ cosignerHome: BatchHome, console: BatchHome) throws -> (TerminalSession, String) {
        var env = cosignerHome.environment
        env["KCS_VAULT_PASSPHRASE_FILE"] = try cosignerHome.write(BatchHome.vaultPassphrase + "\n", to: "pass")
        chmod(cosignerHome.path("pass"), 0o600)
        env["KCS_COSIGNER_READY_FILE"] = cosignerHome.path("ready")
        let t = try TerminalSession(
            environment: env, folder: cosignerHome.folder,
            arguments: ["cosigner", "serve", "--listen", "127.0.0.1:0", "--pair-any"])
        try t.expect("listening on ")
        let address = try String(contentsOfFile: cosignerHome.path("ready"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let setup = try console.run(
            """
            mpc.pair "\(address)" --name laptop --yes
            print "JOINT", (key.generate --two-party --type ecdsa --name joint --cosigner laptop).address
            """, name: "setup.kcs")
        #expect(setup.code == 0, "\(setup.err)")
        return (t, try #require(tagged("JOINT", in: setup.out).first))
    }

    @Test func pairGenerateDeriveSignAndSend() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let rpc = JSONRPCClient(url: URL(string: node.url)!, timeout: 10)
        let cosignerHome = try BatchHome()
        defer { cosignerHome.remove() }
        var console = try BatchHome()
        defer { console.remove() }
        console.environment["KCS_RPC_URL"] = node.url
        let (cosigner, address) = try cosignerHome.startCosigner()
        defer {
            cosigner.terminate()
            cosigner.waitUntilExit()
        }

        let setup = try console.run(
            """
            let peer = mpc.pair "\(address)" --name laptop --yes
            print "PEER", peer.name, peer.role
            let k = key.generate --two-party --type hd-master --name vault --cosigner "\(address)"
            print "KEY", k.kind, k.storage, k.source, k.address
            let c = mpc.derive vault m/0/7
            print "CHILD", c.name, c.kind, c.path, c.address, c.storage
            let change = mpc.derive vault m/1/0 --name vault-change
            print "CHANGE", change.name, change.path
            print "XPUB", k.xpub
            let st = mpc.status vault
            print "STATUS", st.status, st.peer, st.paillierBits
            let shown = key.show vault-0-7
            print "SHOW", shown.storage, shown.parent, shown.peer, shown.role
            try { key.show vault --reveal } catch e { print "REVEAL", e.kind }
            try { key.rotate vault } catch e { print "ROTATE", e.kind }
            """, name: "setup.kcs")
        #expect(setup.code == 0, "\(setup.err)")
        #expect(tagged("PEER", in: setup.out) == ["laptop p1"])
        let key = try #require(tagged("KEY", in: setup.out).first).split(separator: " ").map(String.init)
        #expect(key.prefix(3) == ["HD-MASTER", "2p:laptop", "dkg"])
        let child = try #require(tagged("CHILD", in: setup.out).first).split(separator: " ").map(String.init)
        #expect(child.prefix(3) == ["vault-0-7", "HD-CHILD", "m/0/7"])
        #expect(tagged("CHANGE", in: setup.out) == ["vault-change m/1/0"])
        #expect(tagged("STATUS", in: setup.out) == ["active laptop 2048"])
        #expect(tagged("SHOW", in: setup.out) == ["2p:laptop vault laptop P1 (console: x1 and the Paillier key)"])
        #expect(tagged("REVEAL", in: setup.out) == ["mpc.noWholeKey"])
        #expect(tagged("ROTATE", in: setup.out) == ["store.notRotatable"])
        // The joint xpub derives the child's address in a watch-only wallet (kcs's own BIP-32 here;
        // the protocol tests check it against a reconstructed master and BIP-32's vector 2).
        let xpub = try #require(tagged("XPUB", in: setup.out).first)
        let watch = try console.run("print \"W\", (derive \"m/0/7\" --from \"\(xpub)\").address", name: "watch.kcs")
        #expect(tagged("W", in: watch.out) == [child[3]], "\(watch.err)")

        // Fund the child, then sign a message and a transaction through the co-signer.
        let accounts = try #require(rpc.call("eth_accounts") as? [String])
        _ = try rpc.call(
            "eth_sendTransaction",
            [["from": accounts[0], "to": child[3], "value": "0xde0b6b3a7640000", "gas": "0x5208"]])
        let payee = "0x3535353535353535353535353535353535353535"
        let mail = TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts/eth/mail.json").path
        let signing = try console.run(
            """
            use key vault-0-7
            mpc.explain on
            let m = sign message "hello from two parties"
            print "MSG", m.signer, m.verified, hex(m.signature)
            let ty = sign typed "\(mail)"
            print "TYPED", ty.signer, ty.verified
            let t = sign tx {"to": "\(payee)", "value": "0.01 ether", "gas": 21000}
            let s = eth.send $t.raw --wait
            print "TX", t.type, s.sender, s.receipt.status
            print "HIST", len(history())
            """, name: "sign.kcs")
        #expect(signing.code == 0, "\(signing.err)")
        let message = try #require(tagged("MSG", in: signing.out).first).split(separator: " ").map(String.init)
        #expect(message.prefix(2) == [child[3], "true"])
        #expect(tagged("TX", in: signing.out) == ["EIP-1559 \(child[3]) success"])
        #expect(tagged("HIST", in: signing.out) == ["3"])
        #expect(tagged("TYPED", in: signing.out) == ["\(child[3]) true"])
        #expect(signing.out.contains("P1 → P2: a commitment to R1 = k1·G"))
        #expect(signing.out.contains("checked before anything is decrypted"))
        // eth-keys (in the EVM node's environment) recovers the signer of the message.
        let check = Process()
        check.executableURL = URL(fileURLWithPath: EVMNode.python)
        check.arguments = [
            "-c",
            """
            import sys
            from eth_keys import keys
            from eth_utils import keccak
            msg = b"hello from two parties"
            digest = keccak(b"\\x19Ethereum Signed Message:\\n" + str(len(msg)).encode() + msg)
            sig = bytes.fromhex(sys.argv[1][2:])
            v = sig[64] - 27 if sig[64] >= 27 else sig[64]
            print(keys.Signature(sig[:64] + bytes([v])).recover_public_key_from_msg_hash(digest).to_checksum_address())
            """, message[2],
        ]
        let out = Pipe()
        check.standardOutput = out
        try check.run()
        let recovered = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(recovered.trimmingCharacters(in: .whitespacesAndNewlines) == child[3])

        // The co-signer recorded what it co-signed.
        let cosigned = try cosignerHome.run(
            """
            print "N", len(history())
            print "K", len(key.list())
            for s in mpc.sessions() { print "S", s.kind, s.role, s.state }
            """, name: "cosigned.kcs")
        #expect(
            tagged("S", in: cosigned.out) == [
                "sign p2 done", "sign p2 done", "sign p2 done", "dkg p2 done", "pair p2 done",
            ], "\(cosigned.out)")
        #expect(tagged("N", in: cosigned.out) == ["3"], "\(cosigned.err)")
        let log = try String(contentsOfFile: cosignerHome.path("cosigner.out"), encoding: .utf8)
        // Each request shown as a review (docs/signing-review.md), with the digest the co-signer computed.
        #expect(log.contains("EIP-191 personal message") && log.contains("hello from two parties"), "\(log)")
        #expect(
            log.contains("EIP-1559 transaction (type 2)") && log.contains("0.01 ETH (10,000,000,000,000,000 wei)"),
            "\(log)")
        #expect(
            log.contains("worst-case fee")
                && log.contains("to               0x3535353535353535353535353535353535353535"), "\(log)")
        #expect(
            log.contains("EIP-712 typed data") && log.contains("primary type") && log.contains("\"Hello, Bob!\""),
            "\(log)")
        #expect(log.contains("signer           \(child[3]) ("), "the joint child's address: \(log)")
        #expect(log.contains("signed by        this co-signer, with the console"), "\(log)")

        // Backup and restore of this home's share: the key deleted, restored, and signing again.
        let backup = console.path("vault-share.json")
        let restored = try console.run(
            """
            mpc.export vault "\(backup)" "a backup passphrase" --light
            try { mpc.import "\(backup)" "a backup passphrase" } catch e { print "TWICE", e.kind }
            key.delete vault --children --yes
            try { mpc.import "\(backup)" "wrong" } catch e { print "WRONG", e.kind }
            let back = mpc.import "\(backup)" "a backup passphrase"
            print "BACK", back.name, back.storage, back.address
            mpc.derive vault m/0/7
            print "SIGNED", (sign message "after the restore" --key vault-0-7).verified
            """, name: "restore.kcs")
        #expect(restored.code == 0, "\(restored.err)")
        #expect(tagged("TWICE", in: restored.out) == ["mpc.alreadyStored"])
        #expect(tagged("WRONG", in: restored.out) == ["mpc.backupPassphrase"])
        #expect(tagged("BACK", in: restored.out) == ["vault 2p:laptop \(key[3])"])
        #expect(tagged("SIGNED", in: restored.out) == ["true"])
        let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let text = try String(contentsOfFile: backup, encoding: .utf8)
        #expect(text.contains("\"format\" : \"kcs-two-party-share\""))

        // With the co-signer gone: a clear error naming the address, and nothing stored.
        cosigner.terminate()
        cosigner.waitUntilExit()
        let gone = try console.run("key.generate --two-party --type ecdsa --name second", name: "gone.kcs")
        #expect(gone.code != 0)
        #expect(gone.err.contains("cannot reach the co-signer at \(address)"), "\(gone.err)")
        let after = try console.run("print \"K\", len(key.list())", name: "after.kcs")
        #expect(tagged("K", in: after.out) == ["2"])

        // A key locked after a signature failed its check (the state the console stores then; a
        // valid proof with a bad signature cannot be produced on purpose, so it is written here as
        // another process would): refused before the co-signer is tried, the reason shown.
        let lock = Process()
        lock.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        lock.arguments = [
            "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                + "c.execute(\"UPDATE mpc_keys SET status = 'locked', locked_reason = 'signature-check-failed'\"); c.commit()",
            console.path("home/kcs.db"),
        ]
        try lock.run()
        lock.waitUntilExit()
        #expect(lock.terminationStatus == 0)
        let locked = try console.run(
            """
            try { sign message "locked" --key vault-0-7 } catch e { print "E", e.kind }
            print "ST", (mpc.status vault).status, (mpc.status vault).lockedReason
            """, name: "locked.kcs")
        #expect(tagged("E", in: locked.out) == ["mpc.keyLocked"], "\(locked.out)\(locked.err)")
        #expect(tagged("ST", in: locked.out) == ["locked signature-check-failed"], "\(locked.out)\(locked.err)")
    }

    /// The co-signer refuses what it cannot show (a bare digest) unless its operator allowed it,
    /// and pairs a console only when asked or told to (`--pair-any`), whatever `--approve` says.
    @Test func cosigner_refusesRawDigests_andUnconfirmedPairing() throws {
        let strict = try BatchHome()
        defer { strict.remove() }
        let console = try BatchHome()
        defer { console.remove() }
        let (unattended, unattendedAddress) = try strict.startCosigner(options: [])
        // The co-signer's operator is not there to say yes (a batch run): the console is told
        // which check stopped it; then the console's own user says no (no --yes in a batch run).
        let refused = try console.run(
            """
            try { mpc.pair "\(unattendedAddress)" --name laptop --yes } catch e { print "E", e.kind, contains(e.message, "pair.fingerprints") }
            try { mpc.pair "\(unattendedAddress)" --name laptop } catch e { print "NO", e.kind }
            print "P", len(mpc.peers())
            """, name: "pair.kcs")
        unattended.terminate()
        unattended.waitUntilExit()
        #expect(tagged("P", in: refused.out) == ["0"], "\(refused.out)\(refused.err)")
        #expect(tagged("E", in: refused.out) == ["mpc.peerAborted true"], "\(refused.out)")
        #expect(tagged("NO", in: refused.out) == ["mpc.fingerprintsRejected"], "\(refused.out)")
        let strictLog = try String(contentsOfFile: strict.path("cosigner.err"), encoding: .utf8)
        #expect(
            strictLog.contains("co-signer: the fingerprints were not confirmed; nothing was stored"), "\(strictLog)")
        #expect(
            try strict.run("print \"Q\", len(mpc.peers())", name: "peers.kcs").out == "Q 0\n",
            "nothing paired on the co-signer")

        let home = try BatchHome()
        defer { home.remove() }
        let (cosigner, address) = try home.startCosigner(options: ["--pair-any"])
        defer {
            cosigner.terminate()
            cosigner.waitUntilExit()
        }
        let r = try console.run(
            """
            mpc.pair "\(address)" --name laptop --yes
            key.generate --two-party --type ecdsa --name joint --cosigner laptop
            use key joint
            try { sign 0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8 } catch e { print "RAW", e.kind }
            print "MSG", (sign message "shown first").verified
            print "H", len(history())
            """, name: "raw.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("RAW", in: r.out).count == 1, "\(r.out)")
        #expect(tagged("MSG", in: r.out) == ["true"])
        #expect(tagged("H", in: r.out) == ["1"], "only the message was signed")
        let log = try String(contentsOfFile: home.path("cosigner.out"), encoding: .utf8)
        #expect(log.contains("refused: a bare digest cannot be shown"), "\(log)")
        #expect(log.contains("shown first"), "\(log)")
    }

    /// Pairing shows the request on the co-signer before the console asks its user; a name
    /// given to one co-signer is never rebound to another; both sides show the joint address
    /// and their own name for the key; `store.check` finds both homes healthy.
    @Test func pairing_namesAndHealthyStores() throws {
        let cosignerHome = try BatchHome()
        defer { cosignerHome.remove() }
        let otherHome = try BatchHome()
        defer { otherHome.remove() }
        let console = try BatchHome()
        defer { console.remove() }
        let (cosigner, address) = try cosignerHome.startCosigner()
        let (other, otherAddress) = try otherHome.startCosigner()
        defer {
            other.terminate()
            other.waitUntilExit()
        }
        let r = try console.run(
            """
            print "FP", (mpc.fingerprint)
            mpc.pair "\(address)" --name laptop --yes
            let k = key.generate --two-party --type ecdsa --name joint --cosigner laptop
            print "ADDR", k.address
            try { mpc.pair "\(otherAddress)" --name LAPTOP --yes } catch e { print "TAKEN", e.kind, e.message }
            print "PEERS", len(mpc.peers())
            print "CHECK", (store.check).ok
            """, name: "pair.kcs")
        #expect(r.code == 0, "\(r.err)")
        cosigner.terminate()
        cosigner.waitUntilExit()
        let fingerprint = try #require(tagged("FP", in: r.out).first)
        let jointAddress = try #require(tagged("ADDR", in: r.out).first)
        let log = try String(contentsOfFile: cosignerHome.path("cosigner.out"), encoding: .utf8)
        #expect(log.contains("pairing request:\nthe console:    \(fingerprint)\n"), "\(log)")
        #expect(r.out.contains("the co-signer shows this pairing request"), "\(r.out)")
        #expect(log.contains("joint key \(jointAddress) made with console-"), "\(log)")
        #expect(log.contains(", kept here as "), "\(log)")
        let taken = try #require(tagged("TAKEN", in: r.out).first)
        #expect(taken.hasPrefix("mpc.nameTaken the name laptop is already the co-signer "), "\(taken)")
        #expect(tagged("PEERS", in: r.out) == ["1"])
        #expect(tagged("CHECK", in: r.out) == ["true"])
        let check = try cosignerHome.run("let c = store.check\nprint \"OK\", c.ok, len(c.problems)", name: "check.kcs")
        #expect(tagged("OK", in: check.out) == ["true 0"], "\(check.out)\(check.err)")
    }

    /// A session whose process was killed is swept by the next run: recorded as interrupted (a
    /// gap in the audit trail before), and a share the co-signer stored in it is locked — the
    /// console may never have received the key — until `mpc.unlock`.
    @Test func killedSessions_areSwept_andTheirShareLocked() throws {
        let cosignerHome = try BatchHome()
        defer { cosignerHome.remove() }
        let console = try BatchHome()
        defer { console.remove() }
        let (cosigner, address) = try cosignerHome.startCosigner()
        defer {
            cosigner.terminate()
            cosigner.waitUntilExit()
        }
        try Self.pairAndMakeJoint(console, address)
        let share = try cosignerHome.run("print \"K\", (key.list())[0].name", name: "name.kcs")
        let shareName = try #require(tagged("K", in: share.out).first)
        // What a SIGKILL leaves: an open row of a process that is gone (no pid is this large).
        for (home, kind, role, key) in [(cosignerHome, "dkg", "p2", shareName), (console, "sign", "p1", "joint")] {
            _ = try Self.sqlite(
                home.path("home/kcs.db"),
                """
                INSERT INTO mpc_sessions (kind, role, peer, key_name, state, started_at, pid)
                VALUES ('\(kind)', '\(role)', 'killed-peer', '\(key)', 'open', 1800000000000, 999999999)
                """)
        }
        let swept = try console.run(
            "let s = mpc.sessions --limit 1\nprint \"S\", s[0].kind, s[0].state", name: "sweep.kcs")
        #expect(tagged("S", in: swept.out) == ["sign interrupted"], "\(swept.out)\(swept.err)")
        #expect(swept.err.contains("a two-party sign session with killed-peer was interrupted"), "\(swept.err)")
        // The running co-signer sweeps before its next session: the share is locked, the request refused.
        let refused = try console.run(
            "try { sign message \"after the kill\" --key joint } catch e { print \"E\", e.kind }", name: "refused.kcs")
        #expect(tagged("E", in: refused.out) == ["mpc.peerAborted"], "\(refused.out)\(refused.err)")
        let log = try String(contentsOfFile: cosignerHome.path("cosigner.err"), encoding: .utf8)
        #expect(log.contains("the key \(shareName) it made is locked"), "\(log)")
        let unlock = try cosignerHome.run(
            """
            print "ST", (mpc.status \(shareName)).status
            print "UN", (mpc.unlock \(shareName) --yes).status
            let n = 0
            for x in mpc.sessions() { if x.state == "interrupted" { n = n + 1 } }
            print "TRAIL", n
            """, name: "unlock.kcs")
        #expect(tagged("ST", in: unlock.out) == ["locked"], "\(unlock.out)\(unlock.err)")
        #expect(tagged("UN", in: unlock.out) == ["active"])
        #expect(tagged("TRAIL", in: unlock.out) == ["1"])
        let signed = try console.run(
            "print \"V\", (sign message \"after the unlock\" --key joint).verified", name: "signed.kcs")
        #expect(tagged("V", in: signed.out) == ["true"], "\(signed.out)\(signed.err)")
    }

    /// Pairs `console` with the co-signer at `address` as `laptop` and makes the joint ECDSA key `joint`.
    static func pairAndMakeJoint(_ console: BatchHome, _ address: String) throws {
        let made = try console.run(
            """
            mpc.pair "\(address)" --name laptop --yes
            key.generate --two-party --type ecdsa --name joint --cosigner laptop
            """, name: "setup.kcs")
        #expect(made.code == 0, "\(made.err)")
    }

    /// Runs SQL on a store file with Python's sqlite3 (a process kcs is not).
    static func sqlite(_ file: String, _ sql: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [
            "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()", file,
            sql,
        ]
        let err = Pipe()
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        struct SQLFailed: Error { let text: String }
        guard p.terminationStatus == 0 else { throw SQLFailed(text: text) }
        return text
    }

    /// The co-signer's `[y/N]` at a terminal: the review a person reads — for an EIP-1559
    /// approve at a 5,000 gwei fee cap, and for EIP-712 typed data — with the digest it computed
    /// itself, the joint address and both names (docs/signing-review.md).
    @Test func terminal_cosignerShowsTheReview() throws {
        let cosignerHome = try BatchHome()
        defer { cosignerHome.remove() }
        var console = try BatchHome()
        defer { console.remove() }
        let (t, joint) = try Self.terminalCosigner(cosignerHome, console: console)
        let mail = TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts/eth/mail.json").path
        let approve =
            "0x095ea7b3" + "000000000000000000000000" + String(repeating: "35", count: 20)
            + String(repeating: "ff", count: 32)
        let script = try console.write(
            """
            use key joint
            let t = sign tx {"type": 2, "chainId": 1, "nonce": 7, "to": "0xdAC17F958D2ee523a2206206994597C13D831ec7", "gas": 60000, "maxFeePerGas": "5000 gwei", "maxPriorityFeePerGas": "2 gwei", "data": \(approve)}
            print "TX", t.verified, hex(t.signingHash)
            print "TY", (sign typed "\(mail)").verified
            """, to: "sign.kcs")
        console.environment["KCS_RPC_URL"] = nil
        let signing = try console.start(script, stdout: console.path("sign.out"), stderr: console.path("sign.err"))
        try t.answer("Co-sign it? [y/N] ", with: "y")
        try t.answer("Co-sign it? [y/N] ", with: "y")
        signing.waitUntilExit()
        t.type("\u{03}")
        let text = t.finish().text
        let out = try String(contentsOfFile: console.path("sign.out"), encoding: .utf8)
        #expect(
            signing.terminationStatus == 0,
            "\(out)\((try? String(contentsOfFile: console.path("sign.err"), encoding: .utf8)) ?? "")")
        let hash = try #require(tagged("TX", in: out).first?.split(separator: " ").last.map(String.init))
        #expect(tagged("TY", in: out) == ["true"])
        for shown in [
            "co-sign request from console-", "for \(joint) (the joint key kept here as ",
            "EIP-1559 transaction (type 2)", "Ethereum mainnet (1)", "value            0 ETH", "nonce            7",
            "max fee per gas  5,000 gwei", "priority fee     2 gwei",
            "worst-case fee   0.3 ETH (300,000,000,000,000,000 wei)", "approve(address,uint256), selector 0x095ea7b3",
            "! the fee is high", "! unlimited approval", "signing hash     \(hash)",
            "EIP-712 typed data", "Mail", "verifyingContract  0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
            "EIP-712 Digest", "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2",
            "this co-signer, with the console",
        ] {
            #expect(text.contains(shown), "missing \(shown): \(text)")
        }
    }

    /// At most four connections from one address are served at once: a fifth is closed at once,
    /// and the co-signer says why.
    @Test func cosigner_limitsConnectionsPerAddress() throws {
        let cosignerHome = try BatchHome()
        defer { cosignerHome.remove() }
        let (cosigner, address) = try cosignerHome.startCosigner()
        defer {
            cosigner.terminate()
            cosigner.waitUntilExit()
        }
        let port = UInt16(address.split(separator: ":").last!)!
        let stop = Trickle.Flag(count: 4)
        let tricklers = (0..<4).map { _ in Trickle(port: port, stop: stop) }
        defer {
            stop.set()
            tricklers.forEach { $0.join() }
        }
        for t in tricklers { try t.waitConnected() }
        // The fifth: the co-signer accepts in order, so it meets four open connections.
        let fd = RawHTTP.connectLocal(port: port)
        defer { close(fd) }
        #expect(fd >= 0)
        var byte: UInt8 = 0
        #expect(recv(fd, &byte, 1, 0) <= 0, "the fifth connection is closed without a word")
        let err =
            try String(contentsOfFile: cosignerHome.path("cosigner.err"), encoding: .utf8)
            + String(contentsOfFile: cosignerHome.path("cosigner.out"), encoding: .utf8)
        #expect(err.contains("refused a connection from 127.0.0.1: 4 are already open from there"), "\(err)")
    }

    /// Two peers that stall inside their handshake hold up nobody: each
    /// connection's handshake runs on its own, within a total deadline, and a legitimate console
    /// signs beside them (before, one slow peer blocked every signature behind it).
    @Test func slowPeers_doNotStopALegitimateSignature() throws {
        let cosignerHome = try BatchHome()
        defer { cosignerHome.remove() }
        let console = try BatchHome()
        defer { console.remove() }
        let (cosigner, address) = try cosignerHome.startCosigner()
        defer {
            cosigner.terminate()
            cosigner.waitUntilExit()
        }
        try Self.pairAndMakeJoint(console, address)
        let port = UInt16(address.split(separator: ":").last!)!
        let stop = Trickle.Flag(count: 2)
        let tricklers = (0..<2).map { _ in Trickle(port: port, stop: stop) }
        defer {
            stop.set()
            tricklers.forEach { $0.join() }
        }
        for t in tricklers { try t.waitConnected() }
        let r = try console.run(
            "print \"V\", (sign message \"beside slow peers\" --key joint).verified", name: "sign.kcs")
        #expect(r.code == 0 && tagged("V", in: r.out) == ["true"], "\(r.out)\(r.err)")
    }
}

/// A TCP client that connects to 127.0.0.1:`port`, announces a handshake hello, sends one byte of
/// it and stalls until told to stop: a peer that never finishes its handshake.
final class Trickle: @unchecked Sendable {
    /// Set once when the test is done; every trickler waits for it.
    final class Flag: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let count: Int
        init(count: Int) { self.count = count }
        func set() { for _ in 0..<count { done.signal() } }
        func wait() { done.wait() }
    }

    private let connected = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var failure: String?

    init(port: UInt16, stop: Flag) {
        let thread = Thread { [self] in
            defer { done.signal() }
            let fd = RawHTTP.connectLocal(port: port)
            defer { if fd >= 0 { close(fd) } }
            let ok = fd >= 0
            if !ok { failure = "cannot connect: \(errno)" }
            connected.signal()
            guard ok else { return }
            // A hello's length (97 bytes, docs/two-party-protocol.md §7) and its first byte, then
            // nothing more until the test ends: a peer that stalls inside its handshake.
            var start: [UInt8] = [0, 0, 0, 97, 1]
            guard send(fd, &start, start.count, Int32(MSG_NOSIGNAL)) == start.count else { return }
            stop.wait()
        }
        thread.start()
    }

    func waitConnected() throws {
        connected.wait()
        if let failure { throw TrickleFailed(reason: failure) }
    }

    func join() { done.wait() }

    struct TrickleFailed: Error { let reason: String }
}

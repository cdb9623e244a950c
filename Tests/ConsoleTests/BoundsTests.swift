// Every cost bounded, through the real kcs binary: hostile keystore files (scrypt and PBKDF2
// parameters past the ceiling, docs/store.md), Ctrl-C while a keystore KDF runs, hostile EIP-712
// documents (array dimensions, struct nesting, JSON nesting; docs/wallet-core.md), paths deeper
// than an extended key can record, `int` of a million digits, and transactions whose nonce or
// gas no node would take (EIP-2681). Each run has a deadline: the defects were hours of work,
// gigabytes of memory or a crash, and a test must report them, not wait for them.
import Foundation
import KCSTestSupport
import Testing

/// A keystore V3 file whose fields are all well formed, with `kdf` and its `kdfparams` (without
/// dklen and salt) as given; any password gives a MAC mismatch once the KDF has run.
func hostileKeystore(kdf: String, params: String) -> String {
    """
    {"crypto": {"cipher": "aes-128-ctr", "cipherparams": {"iv": "\(String(repeating: "00", count: 16))"},
     "ciphertext": "\(String(repeating: "11", count: 32))", "kdf": "\(kdf)",
     "kdfparams": {"dklen": 32, \(params), "salt": "\(String(repeating: "22", count: 32))"},
     "mac": "\(String(repeating: "33", count: 32))"}, "version": 3}
    """
}

/// An EIP-712 document with the struct types `types` (JSON members of "types") and `Root` as
/// the primary type.
func typedDocument(types: String, message: String = "{}") -> String {
    """
    {"types": {"EIP712Domain": [{"name": "name", "type": "string"}], \(types)},
     "primaryType": "Root", "domain": {"name": "bounds"}, "message": \(message)}
    """
}

extension BatchHome {
    /// Runs `code` as a script like `run`, but stops kcs after `seconds` (SIGKILL); `finished`
    /// is false then. Returns the exit status, the output and the time taken.
    func run(
        _ code: String, deadline seconds: TimeInterval,
        name: String = "run.kcs"
    ) throws -> (finished: Bool, code: Int32, out: String, err: String, seconds: Double) {
        let script = try write(code, to: name)
        let out = path(name + ".out"), err = path(name + ".err")
        let started = Date()
        let p = try start(script, stdout: out, stderr: err)
        let finished = p.waitForExit(within: seconds)
        if !finished { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        return (
            finished, p.terminationStatus, try String(contentsOfFile: out, encoding: .utf8),
            try String(contentsOfFile: err, encoding: .utf8), Date().timeIntervalSince(started)
        )
    }
}

@Suite("Every cost bounded")
struct BoundsTests {
    // MARK: - Keystore KDF ceilings

    /// Three files from the report: scrypt p = 2^20 (hours), n = 2^20 r = 15 (1.9 GiB), PBKDF2
    /// c = 2^31 (minutes). Each is refused before the password is asked or the KDF starts,
    /// naming the parameter, its value and its largest allowed value.
    @Test func keystoreLoad_hostileKDFParameters_refusedAtOnceNamingParameterValueAndCeiling() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let files = [
            try home.write(
                hostileKeystore(kdf: "scrypt", params: "\"n\": 262144, \"r\": 8, \"p\": 1048576"), to: "p.json"),
            try home.write(hostileKeystore(kdf: "scrypt", params: "\"n\": 1048576, \"r\": 15, \"p\": 1"), to: "n.json"),
            try home.write(hostileKeystore(kdf: "scrypt", params: "\"n\": 2, \"r\": 8388608, \"p\": 1"), to: "r.json"),
            try home.write(
                hostileKeystore(kdf: "pbkdf2", params: "\"c\": 2147483648, \"prf\": \"hmac-sha256\""), to: "c.json"),
        ]
        let r = try home.run(
            """
            for f in [\(files.map { "\"\($0)\"" }.joined(separator: ", "))] {
              try { keystore load $f "password" } catch e { print "E", e.kind, "|", e.message }
            }
            """, deadline: 60)
        #expect(r.finished, "kcs was still deriving after 60 s: \(r.out)")
        #expect(r.code == 0, "\(r.err)")
        let hint = "; add --allow-expensive-kdf to derive it anyway"
        #expect(
            tagged("E", in: r.out) == [
                "keystore.kdfTooExpensive | keystore.load: keystore field crypto.kdfparams.p must be at most 8 with n = 262144, "
                    + "r = 8 (scrypt work n·r·p = 16777216), got 1048576 (n·r·p = 2199023255552)" + hint,
                "keystore.kdfTooExpensive | keystore.load: keystore field crypto.kdfparams.n must be at most 524288 with r = 15 "
                    + "(128·n·r = 1024 MiB of scrypt memory), got 1048576 (1920 MiB)" + hint,
                "keystore.kdfTooExpensive | keystore.load: keystore field crypto.kdfparams.r must be at most 4194304 with n = 2 "
                    + "(128·n·r = 1024 MiB of scrypt memory), got 8388608 (2048 MiB)" + hint,
                "keystore.kdfTooExpensive | keystore.load: keystore field crypto.kdfparams.c must be at most 10000000 "
                    + "PBKDF2 iterations, got 2147483648" + hint,
            ], "\(r.out)")
        #expect(r.seconds < 30, "took \(r.seconds) s")
    }

    /// Ctrl-C while a keystore KDF runs (a PBKDF2 of 2^31 rounds, let past the ceiling with
    /// --allow-expensive-kdf): the command is cancelled at once, nothing is stored, and the
    /// session goes on; the KDF's thread is left to finish with its result thrown away.
    @Test func keystoreLoad_ctrlCWhileTheKDFRuns_cancelsAtOnceAndTheSessionGoesOn() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let file = try home.write(
            hostileKeystore(kdf: "pbkdf2", params: "\"c\": 2147483648, \"prf\": \"hmac-sha256\""),
            to: "slow.json")
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer("kcs> ", with: "keystore load \(file) \"password\" --allow-expensive-kdf")
        try t.expect("deriving the keystore key (pbkdf2-sha256 c=2147483648)…")
        // Not a wait for anything: the KDF is let run a while, so the Ctrl-C lands in the middle
        // of it (the rounds take minutes), not at its start.
        Thread.sleep(forTimeInterval: 0.5)
        let pressed = Date()
        t.type("\u{03}")
        try t.expect("keystore.load: cancelled; nothing changed", seconds: 10)
        let waited = Date().timeIntervalSince(pressed)
        try t.answer("kcs> ", with: "print \"AFTER\", 6 * 7")
        try t.expect("AFTER 42")
        let (text, status) = (try t.quit(), t.status)
        #expect(waited < 2, "the prompt came back \(waited) s after Ctrl-C")
        #expect(status == 0, "\(text)")
    }

    // MARK: - EIP-712 documents

    /// A type with more array suffixes than the limit (33; the report's 100,000 took 7.7 GiB and
    /// crashed), struct types nested past the limit, and JSON nested past the decoder's limit:
    /// each a one-line error naming what and the limit. At the limits, documents still hash.
    @Test func signTyped_hostileDocuments_refusedNamingWhatAndTheLimit() throws {
        let home = try BatchHome()
        defer { home.remove() }
        func dims(_ n: Int) -> String {
            #""Root": [{"name": "x", "type": "uint256\#(String(repeating: "[]", count: n))"}]"#
        }
        func chain(_ n: Int) -> String {
            // Root → S1 → … → S(n-1) → uint256: n struct types in a chain.
            (0..<n).map { i in
                let name = i == 0 ? "Root" : "S\(i)"
                let next = i == n - 1 ? "uint256" : "S\(i + 1)"
                return #""\#(name)": [{"name": "x", "type": "\#(next)"}]"#
            }.joined(separator: ", ")
        }
        let prefix = #"{"types": {"EIP712Domain": []}, "primaryType": "EIP712Domain", "domain": {}, "message": "#
        let files = [
            try home.write(typedDocument(types: dims(33), message: #"{"x": []}"#), to: "dims33.json"),
            try home.write(typedDocument(types: dims(32), message: #"{"x": []}"#), to: "dims32.json"),
            try home.write(typedDocument(types: chain(65)), to: "chain65.json"),
            try home.write(
                prefix + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
                to: "json600.json"),
            try home.write("{\"types\": {},\n  \"primaryType\": ,}", to: "broken.json"),
        ]
        let r = try home.run(
            """
            for f in [\(files.map { "\"\($0)\"" }.joined(separator: ", "))] {
              try { print "D", len((sign typed $f --dry-run).digest) } catch e { print "E", e.kind, "|", e.message }
            }
            """, deadline: 60)
        #expect(r.finished && r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        try #require(lines.count == 5, "\(r.out)")
        // Without the limit, the 100,000-suffix document below takes gigabytes: it only runs once this holds.
        try #require(
            lines[0]
                == "E eth.typedData.tooDeep | typed data type of Root.x must have at most 32 array dimensions, got 33")
        #expect(lines[1] == "D 32")
        #expect(
            lines[2] == "E eth.typedData.tooDeep | typed data struct Root must have at most 64 levels of nested struct "
                + "types, got more: Root → S1 → … → S63 → S64")
        #expect(
            lines[3]
                == "E eth.typedData.malformed | typed data must be an EIP-712 document {types, primaryType, domain, "
                + "message}: not valid JSON: arrays and objects must nest at most 512 levels deep, got more at line 1, "
                + "column \(prefix.count + 512)")  // the message is at depth 1
        #expect(
            lines[4].hasPrefix(
                "E eth.typedData.malformed | typed data must be an EIP-712 document {types, primaryType, "
                    + "domain, message}: not valid JSON: "), "\(lines[4])")
        #expect(lines[4].hasSuffix(" at line 2, column 18"), "\(lines[4])")

        // The report's type: 100,000 array suffixes, refused in time and without the gigabytes.
        let deep = try home.write(typedDocument(types: dims(100_000), message: #"{"x": []}"#), to: "dims100000.json")
        let d = try home.run(
            "try { sign typed \"\(deep)\" --dry-run } catch e { print \"E\", e.message }", deadline: 60,
            name: "deep.kcs")
        #expect(d.finished && d.code == 0, "\(d.err)")
        #expect(
            tagged("E", in: d.out) == ["typed data type of Root.x must have at most 32 array dimensions, got 100000"])
        #expect(d.seconds < 20, "took \(d.seconds) s")
    }

    // MARK: - Paths and integers

    /// `path.explain` takes the depth limit of `derive` (255 levels, what an extended key can
    /// record); 100,000 levels are refused at once instead of taking minutes.
    @Test func pathExplain_deeperThan255Levels_refusedLikeDerive() throws {
        let home = try BatchHome()
        defer { home.remove() }
        func path(_ n: Int) -> String { "m" + String(repeating: "/0", count: n) }
        let r = try home.run(
            """
            print "OK", type(path.explain("\(path(255))"))
            for p in ["\(path(256))", "\(path(100_000))"] {
              try { path.explain $p } catch e { print "E", e.kind, "|", e.message }
            }
            let k = hd.master "\(testMnemonic)"
            try { derive "\(path(256))" --from $k } catch e { print "D", e.kind, "|", e.message }
            """, deadline: 60)
        #expect(r.finished && r.code == 0, "\(r.err)")
        #expect(tagged("OK", in: r.out) == ["explanation"], "\(r.out)")
        #expect(
            tagged("E", in: r.out) == [
                "path.tooDeep | derivation path must have at most 255 levels (the depth an extended key records), got 256",
                "path.tooDeep | derivation path must have at most 255 levels (the depth an extended key records), got 100000",
            ], "\(r.out)")
        #expect(
            tagged("D", in: r.out) == [
                "path.tooDeep | derivation path must have at most 255 levels (the depth an extended key records), got 256"
            ], "\(r.out)")
        #expect(r.seconds < 20, "took \(r.seconds) s")
    }

    /// `int` of a million digits is refused at once (it took 7.6 s); 4096 digits still convert.
    @Test func int_ofAMillionDigits_refusedNamingTheLimit() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let ones = String(repeating: "1", count: 4096), fs = String(repeating: "f", count: 4096)
        let r = try home.run(
            """
            print "OK", int("\(ones)") % 10, int("-0x\(fs)") < 0
            try { int("\(String(repeating: "1", count: 1_000_000))") } catch e { print "E", e.kind, "|", e.message }
            try { int("0x\(fs)f") } catch e { print "E", e.kind, "|", e.message }
            """, deadline: 60)
        #expect(r.finished && r.code == 0, "\(r.err)")
        #expect(tagged("OK", in: r.out) == ["1 true"], "\(r.out)")
        #expect(
            tagged("E", in: r.out) == [
                "builtin.outOfRange | int: argument 1 (value) must be at most 4096 digits long, got 1000000",
                "builtin.outOfRange | int: argument 1 (value) must be at most 4096 digits long, got 4097",
            ], "\(r.out)")
        #expect(r.seconds < 5, "took \(r.seconds) s")
    }

    // MARK: - Transactions

    /// A nonce of 2^64 − 1 or more (EIP-2681) and a gas limit of 2^64 or more are refused with
    /// the field named; the largest of each that nodes take still signs.
    @Test func signTx_nonceOrGasPastUint64_refusedNamingTheField() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let to = "0x3535353535353535353535353535353535353535"
        func tx(_ fields: String) -> String {
            #"{"type": 2, "chainId": 1, "to": "\#(to)", "maxFeePerGas": "2 gwei", "maxPriorityFeePerGas": "1 gwei", \#(fields)}"#
        }
        let r = try home.run(
            """
            let ok = sign tx \(tx(#""nonce": "18446744073709551614", "gas": "18446744073709551615""#)) --dry-run --offline
            print "OK", ok.type, len(ok.signingHash)
            for t in [\(tx(#""nonce": "18446744073709551615""#)), \(tx(#""nonce": "0x10000000000000000""#)),
                      \(tx(#""gas": "18446744073709551616""#))] {
              try { sign tx $t --dry-run --offline } catch e { print "E", e.kind, "|", e.message }
            }
            """, deadline: 60)
        #expect(r.finished && r.code == 0, "\(r.err)")
        #expect(tagged("OK", in: r.out) == ["EIP-1559 32"], "\(r.out)")
        #expect(
            tagged("E", in: r.out) == [
                "eth.tx.badField | transaction nonce must be below 2^64-1 = 18446744073709551615 (EIP-2681), got 18446744073709551615",
                "eth.tx.badField | transaction nonce must be below 2^64-1 = 18446744073709551615 (EIP-2681), got 18446744073709551616",
                "eth.tx.badField | transaction gas must be at most 2^64-1 = 18446744073709551615 (clients hold gas as a uint64), "
                    + "got 18446744073709551616",
            ], "\(r.out)")
    }
}

// kcs-bench: throughput figures for `make bench` (bench/run prints them next to the C
// baseline from bench/c/bench.c, which does the same work straight on the C libraries).
// Usage: kcs-bench [all|addresses|ecdsa|seed|scrypt|scrypt-rss|lang|card|card-pcsc|card4-pcsc|store|eth|bitcoin|discovery|signer|qr|mpc]
// Output: one line per figure, "name ops_per_second" (scrypt-rss: "rss_mib N").
import Foundation
import WalletCore

let clock = ContinuousClock()

/// Runs `body` `n` times and returns operations per second.
func rate(_ n: Int, _ body: (Int) throws -> Void) rethrows -> Double {
    let start = clock.now
    for i in 0..<n { try body(i) }
    let d = clock.now - start
    let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    return Double(n) / seconds
}

func report(_ name: String, _ value: Double) {
    print(String(format: "%@ %.3f", name, value))
}

let what = CommandLine.arguments.dropFirst().first ?? "all"
let all = what == "all"

if all || what == "addresses" {
    // The same account node as the C loop: fixed key and chain code (the per-child work counts).
    let key = try PrivateKey(bytes: (0..<32).map { UInt8(0x11 + $0) })
    let account = try ExtendedKey(privateKey: key, chainCode: (0..<32).map { UInt8(0x42 ^ $0) }, depth: 4)
    var check = 0
    _ = try rate(500) { i in
        check &+= Int(
            EthereumAddress(publicKey: try account.derive(ChildIndex(UInt32(i))).publicKey).checksummed.utf8.count)
    }
    let r = try rate(10_000) { i in
        let child = try account.derive(ChildIndex(UInt32(i)))
        check &+= Int(EthereumAddress(publicKey: child.publicKey).checksummed.utf8.last!)
    }
    precondition(check != 0)
    report("addresses", r)
}

if all || what == "ecdsa" {
    let key = try PrivateKey(bytes: (0..<32).map { UInt8($0 + 1) })
    var digest = (0..<32).map { UInt8(0xa0 ^ $0) }
    var sig = try key.sign(digest: digest)
    report(
        "sign",
        try rate(5000) { i in
            digest[0] = UInt8(truncatingIfNeeded: i)
            sig = try key.sign(digest: digest)
        })
    let pub = key.publicKey
    var ok = 0
    report("verify", rate(5000) { _ in if Secp256k1.verify(sig.signature, digest: digest, publicKey: pub) { ok += 1 } })
    report("recover", try rate(5000) { _ in if try sig.recoverPublicKey(digest: digest) == pub { ok += 1 } })
    precondition(ok == 10_000, "verify/recover failed")
}

if all || what == "seed" {
    let m = try Mnemonic(
        phrase: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about")
    report("seed", rate(200) { _ in _ = m.seed() })
}

if all || what == "lang" { try LanguageBench.run() }
if all || what == "qr" { try QRBench.run() }
if all || what == "mpc" { try MPCBench.run() }
if all || what == "card" {
    try CardBench.run(inProcess: true, pcsc: false)
    try Card4Bench.run(inProcess: true, pcsc: false)
}
if all || what == "store" { try StoreBench.run() }
if all || what == "eth" { try EthBench.run() }
if all || what == "bitcoin" { try BitcoinBench.run() }
if what == "card4-pcsc" {
    do { try Card4Bench.run(inProcess: false, pcsc: true) } catch {
        FileHandle.standardError.write(Data("card4-pcsc: \(error)\n".utf8))
        exit(1)
    }
}
if what == "card-pcsc" {
    do { try CardBench.run(inProcess: false, pcsc: true) } catch {
        FileHandle.standardError.write(Data("card-pcsc: \(error)\n".utf8))
        exit(1)
    }
}

let password = Secret(utf8: "testpassword")
let key = try PrivateKey(bytes: (0..<32).map { UInt8(0x30 + $0) })

if all || what == "scrypt" {
    let light = try KeystoreV3.seal(
        key, password: password, kdf: .scrypt(n: 4096, r: 8, p: 1), random: SeededRandom(seed: 1))
    report("scrypt4096", try rate(20) { _ in _ = try light.decrypt(password: password) })
    let standard = try KeystoreV3.seal(
        key, password: password, kdf: .scrypt(n: 262_144, r: 8, p: 1), random: SeededRandom(seed: 2))
    report("scrypt262144", try rate(3) { _ in _ = try standard.decrypt(password: password) })
}

if what == "scrypt-rss" {
    // Run alone in its own process so the peak resident size is the keystore's.
    let standard = try KeystoreV3.seal(
        key, password: password, kdf: .scrypt(n: 262_144, r: 8, p: 1), random: SeededRandom(seed: 2))
    _ = try standard.decrypt(password: password)
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    report("rss_mib", Double(usage.ru_maxrss) / 1024)
}

if all || what == "discovery" { try DiscoveryBench.run() }
if all || what == "signer" { try SignerBench.run() }

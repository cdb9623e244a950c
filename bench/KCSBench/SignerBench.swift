// `kcs signer serve` (docs/signer.md), in process against the local py-evm node that bench/run
// starts: what the endpoint adds to a request. eth_chainId (kcs answers it) and eth_blockNumber
// (forwarded) through kcs beside the same calls straight to the node; a personal_sign approved by
// a rule with a software key (HTTP, the review, the rule, the signature checked, the history row
// and the log row) beside the EIP-191 digest and signature alone.
import EthRPC
import Foundation
import Synchronization
import WalletCore
import WalletCrypto
import WalletSession

enum SignerBench {
    final class Serving: @unchecked Sendable {
        let session: Session
        let options: SignerServeOptions
        init(session: Session, options: SignerServeOptions) {
            self.session = session
            self.options = options
        }
    }

    /// Prompts that answer nothing and stop the server when told (Ctrl-C's stand-in).
    final class Quiet: SessionPrompts, @unchecked Sendable {
        let stop = Atomic<Bool>(false)
        var isInteractive: Bool { false }
        func write(_ text: String) {}
        func askSecret(prompt: String) throws -> Secret? { nil }
        func ask(prompt: String) throws -> String? { nil }
        func status(_ text: String) {}
        func warn(_ text: String) {}
        func progress(_ text: String?) {}
        func shouldInterrupt() -> Bool { stop.load(ordering: .relaxed) }
    }

    static func run() throws {
        guard let rpc = ProcessInfo.processInfo.environment["KCS_BENCH_RPC"], !rpc.isEmpty else {
            FileHandle.standardError.write(Data("signer: KCS_BENCH_RPC not set (bench/run starts the node)\n".utf8))
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kcs-bench-signer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = folder.appendingPathComponent("run").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        chmod(runtime, 0o700)
        let ready = folder.appendingPathComponent("ready").path
        let session = Session(
            home: folder.appendingPathComponent("home").path,
            environment: ["KCS_VAULT_PASSPHRASE": "bench", "XDG_RUNTIME_DIR": runtime, "KCS_SIGNER_READY_FILE": ready],
            vaultParameters: .insecureForTesting())
        let prompts = Quiet()
        session.prompts = prompts
        session.setNode(url: rpc)
        let key = try PrivateKey(bytes: [UInt8](repeating: 0x4c, count: 32))
        let address = EthereumAddress(publicKey: key.publicKey).checksummed
        _ = try session.importPrivateKey(key, name: "bench", source: .privkey)
        let rules = folder.appendingPathComponent("rules.json").path
        FileManager.default.createFile(
            atPath: rules, contents: Data(#"{"kcsRules": 1, "messages": {"allow": [{"textPrefix": "bench"}]}}"#.utf8),
            attributes: [.posixPermissions: 0o600])
        var options = SignerServeOptions()
        options.listen = "127.0.0.1:0"
        options.key = "bench"
        options.rulesFile = rules
        let done = DispatchSemaphore(value: 0)
        // The session is used by the serving thread only, from here on.
        let box = Serving(session: session, options: options)
        let serving = Thread {
            do { try box.session.serveSigner(box.options) } catch {
                FileHandle.standardError.write(Data("signer: \(error)\n".utf8))
            }
            done.signal()
        }
        serving.stackSize = 8 << 20
        serving.start()
        defer {
            prompts.stop.store(true, ordering: .relaxed)
            done.wait()
        }
        // Waits for the event: the ready file, written once it listens.
        var facts: [String: Any]?
        for _ in 0..<3000 where facts == nil {
            if let data = FileManager.default.contents(atPath: ready), data.last == 0x0A {
                facts = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            } else {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        guard let url = facts?["url"] as? String, let tokenFile = facts?["tokenFile"] as? String else {
            FileHandle.standardError.write(Data("signer: kcs signer serve did not start\n".utf8))
            return
        }
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .newlines)
        let through = JSONRPCClient(url: URL(string: url + "/" + token)!, timeout: 30, readRetries: 0)
        let direct = JSONRPCClient(url: URL(string: rpc)!, timeout: 30, readRetries: 0)
        for (name, client) in [("signer_chainid", through), ("signer_chainid_raw", direct)] {
            _ = try client.call("eth_chainId")
            report(
                name,
                try rate(1000) { _ in
                    let chain = try client.call("eth_chainId") as? String
                    precondition(chain == "0x776562337079")
                })
        }
        for (name, client) in [("signer_forward", through), ("signer_forward_raw", direct)] {
            report(
                name,
                try rate(300) { _ in
                    let block = try client.call("eth_blockNumber")
                    precondition(block is String)
                })
        }
        report(
            "signer_personal_sign",
            try rate(200) { i in
                let message = "bench \(i)"
                let signature = try through.call("personal_sign", ["0x" + Hex.encode(Array(message.utf8)), address])
                precondition((signature as? String)?.count == 132, "personal_sign answered \(signature)")
            })
        report(
            "signer_personal_sign_raw",
            try rate(200) { i in
                _ = try EthereumSignature.sign(digest: PersonalMessage.digest(text: "bench \(i)"), with: key)
            })
    }
}

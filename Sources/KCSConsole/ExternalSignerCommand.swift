import Foundation
import KCSErrors
import WalletCore
import WalletSession

// `kcs hwi …`: HWI's command line, as Bitcoin Core's external signer calls it (`-signer="kcs
// hwi"`, docs/bitcoin.md, "Bitcoin Core"), run by the kcs executable before its own command
// line is read: global options before the command, `--stdin` reading
// further words from standard input (the PSBT), exactly one JSON document on standard output,
// HWI's error objects `{"error", "code"}`, exit status 0. Diagnostics go to standard error.

public enum HWICommand {
    /// HWI's error codes (hwilib/errors.py).
    enum Code: Int {
        case noDeviceType = -1, missingArguments = -2, deviceConnError = -3, invalidTx = -5, badArgument = -7
        case notImplemented = -8, unavailableAction = -9, unknownError = -13
    }

    struct Failure: Error {
        let message: String
        let code: Code
    }

    /// Runs `arguments` (the words after `hwi`) and prints the answer; the exit status is 0, as HWI's.
    public static func run(_ arguments: [String], input: FileHandle = .standardInput) -> Int32 {
        let answer: Any
        do {
            answer = try respond(to: arguments, input: input)
        } catch let f as Failure {
            answer = ["error": f.message, "code": f.code.rawValue]
        } catch let e as any IdentifiableError {
            answer = ["error": e.description, "code": Code.unknownError.rawValue]
        } catch {
            answer = ["error": "\(error)", "code": Code.unknownError.rawValue]
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        FileHandle.standardOutput.write(data + Data("\n".utf8))
        return 0
    }

    /// The options HWI takes before its command, and whether each takes a value.
    static let globalOptions: [String: Bool] = [
        "--fingerprint": true, "-f": true, "--chain": true, "--device-path": true, "-d": true, "--device-type": true,
        "-t": true, "--password": true, "-p": true, "--stdin": false, "--stdinpass": false, "--debug": false,
        "--expert": false, "--emulators": false, "--interactive": false, "-i": false,
    ]

    static func respond(to arguments: [String], input: FileHandle) throws -> Any {
        var words = arguments
        var options: [String: String] = [:]
        var command: [String] = []
        var i = 0
        while i < words.count {
            let w = words[i]
            let (name, inline) =
                w.hasPrefix("--") && w.contains("=")
                ? (String(w.split(separator: "=")[0]), String(w.split(separator: "=", maxSplits: 1)[1])) : (w, nil)
            if command.isEmpty, let takesValue = globalOptions[name] {
                if takesValue {
                    guard let v = inline ?? (i + 1 < words.count ? words[i + 1] : nil) else {
                        throw Failure(message: "\(name) needs a value", code: .missingArguments)
                    }
                    options[name.count == 2 ? longName(name) : name] = v
                    if inline == nil { i += 1 }
                } else {
                    options[name] = ""
                    if name == "--stdin" { words += stdinWords(input) }
                }
            } else {
                command.append(w)
            }
            i += 1
        }
        guard let verb = command.first else { throw Failure(message: "a command is needed", code: .missingArguments) }
        let chainName = options["--chain"] ?? "main"
        guard let chain = BitcoinChain(rawValue: chainName) else {
            throw Failure(
                message: "--chain must be main, test, testnet4, signet or regtest, got \(chainName)", code: .badArgument
            )
        }
        let session = Session(home: ProcessInfo.processInfo.environment["KCS_HOME"])
        if verb == "enumerate" { return enumerate(session) }
        guard options["--fingerprint"] != nil || options["--device-type"] != nil else {
            throw Failure(
                message: "You must specify a device type or fingerprint for all commands except enumerate",
                code: .noDeviceType)
        }
        let signer: (keys: BitcoinKeyChoice, fingerprint: String, model: String)
        do { signer = try session.externalSigner(fingerprint: options["--fingerprint"]) } catch {
            throw Failure(message: "\(error)", code: .deviceConnError)
        }
        let args = Array(command.dropFirst())
        let version: ExtendedKeyVersion = chain.isMainnet ? .xpub : .tpub
        switch verb {
        case "getdescriptors":
            let account = try uint(option("--account", in: args) ?? "0", "--account")
            let d = try session.accountDescriptors(keys: signer.keys, account: account, chain: chain)
            return [
                "receive": try d.receive.map { try $0.text(version: version) },
                "internal": try d.change.map { try $0.text(version: version) },
            ]
        case "displayaddress":
            guard let desc = option("--desc", in: args) else {
                throw Failure(
                    message: "displayaddress needs --desc (kcs shows addresses of descriptors)", code: .missingArguments
                )
            }
            return ["address": try session.externalSignerAddress(desc, keys: signer.keys, chain: chain)]
        case "signtx":
            guard var text = args.first(where: { !$0.hasPrefix("-") }) else {
                throw Failure(message: "signtx needs a PSBT", code: .missingArguments)
            }
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
                text = String(text.dropFirst().dropLast())
            }
            let psbt: PSBT
            do { psbt = try PSBT.read(text: text) } catch { throw Failure(message: "\(error)", code: .invalidTx) }
            let signed: PSBTSigned
            do {
                signed = try session.signPSBT(psbt, keys: signer.keys, policy: PSBTPolicy(chain: chain), yes: false)
            } catch let e as PSBTSigningError {
                throw Failure(message: e.description, code: .invalidTx)
            }
            return ["psbt": signed.psbt.base64, "signed": !signed.signed.isEmpty]
        case "getxpub":
            guard let p = args.first(where: { !$0.hasPrefix("-") }) else {
                throw Failure(message: "getxpub needs a path", code: .missingArguments)
            }
            let path: DerivationPath
            do { path = try DerivationPath(p) } catch {
                throw Failure(message: "\(p) is not a derivation path", code: .badArgument)
            }
            return ["xpub": try session.bitcoinWallet(signer.keys).extendedKey(at: path).serialized(version)]
        case "getmasterxpub":
            let purposes = ["legacy": 44, "sh_wit": 49, "wit": 84, "tap": 86]
            let type = option("--addr-type", in: args) ?? "wit"
            guard let purpose = purposes[type] else {
                throw Failure(
                    message: "--addr-type must be legacy, sh_wit, wit or tap, got \(type)", code: .badArgument)
            }
            let account = try uint(option("--account", in: args) ?? "0", "--account")
            let path = DerivationPath(
                absolute: true,
                [
                    ChildIndex(UInt32(purpose), hardened: true), ChildIndex(chain.coinType, hardened: true),
                    ChildIndex(account, hardened: true),
                ])
            return ["xpub": try session.bitcoinWallet(signer.keys).extendedKey(at: path).serialized(version)]
        case "signmessage":
            // HWI's form: the legacy 65-byte recoverable signature (BIP-137 header), whatever the path.
            let positional = args.filter { !$0.hasPrefix("-") }
            guard positional.count >= 2 else {
                throw Failure(message: "signmessage needs a message and a path", code: .missingArguments)
            }
            let path: DerivationPath
            do { path = try DerivationPath(positional[1]) } catch {
                throw Failure(message: "\(positional[1]) is not a derivation path", code: .badArgument)
            }
            let signed = try session.signBitcoinMessage(
                Array(positional[0].utf8), keys: signer.keys, path: path, kind: .p2pkh, chain: chain, yes: true)
            return ["signature": signed.signature]
        case "setup", "wipe", "restore", "backup", "promptpin", "sendpin", "togglepassphrase", "installudevrules":
            throw Failure(message: "\(verb) is done at the kcs console, not through hwi", code: .unavailableAction)
        default:
            throw Failure(message: "unknown command \(verb)", code: .badArgument)
        }
    }

    /// `enumerate`: the configured signer as one device (no configuration: no device).
    static func enumerate(_ session: Session) -> [[String: Any]] {
        do {
            let s = try session.externalSigner(fingerprint: nil)
            return [
                [
                    "type": "kcs", "model": s.model, "path": "kcs", "label": "kcs", "needs_pin_sent": false,
                    "needs_passphrase_sent": false, "fingerprint": s.fingerprint,
                ]
            ]
        } catch ExternalSignerError.notConfigured(let file) {
            FileHandle.standardError.write(Data("kcs hwi: no signer configured (\(file))\n".utf8))
            return []
        } catch {
            return [
                [
                    "type": "kcs", "model": "kcs", "path": "kcs", "error": "\(error)",
                    "code": Code.deviceConnError.rawValue,
                ]
            ]
        }
    }

    static func longName(_ short: String) -> String {
        [
            "-f": "--fingerprint", "-d": "--device-path", "-t": "--device-type", "-p": "--password",
            "-i": "--interactive",
        ][short] ?? short
    }

    /// The value after `name` in `args`.
    static func option(_ name: String, in args: [String]) -> String? {
        if let i = args.firstIndex(of: name), i + 1 < args.count { return args[i + 1] }
        return args.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    static func uint(_ text: String, _ name: String) throws -> UInt32 {
        guard let n = UInt32(text), n < ChildIndex.hardenedOffset else {
            throw Failure(message: "\(name) must be a number below 2^31, got \(text)", code: .badArgument)
        }
        return n
    }

    /// `--stdin`: words from standard input, line by line (split on blanks, quotes kept as HWI's
    /// shlex keeps them only around one word), until an empty line or the end.
    static func stdinWords(_ input: FileHandle) -> [String] {
        let data = input.readDataToEndOfFile().prefix(PSBT.maximumSize * 2)
        var words: [String] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { break }
            words += trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
        return words
    }
}

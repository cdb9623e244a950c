import Foundation
import KCSRuntime
import QRCodes
import WalletCore
import WalletCrypto
import WalletSession

// The `qr` namespace: any value as a QR code in the terminal or in a PNG/SVG file, and QR codes
// read from PNG files — one code, or the parts of a multi-part UR in any order (docs/qr.md).

/// A QR code shown as a value: drawn with half blocks for the display it is shown on.
struct QRValue: DrawnValue {
    /// What the code holds (so `qr.save` of a drawn value writes the same code).
    let payload: QRPayload
    let code: QRCode
    let margin: Int
    /// Without colour: light modules drawn as blocks (dark terminals) unless inverted.
    let lightDrawn: Bool

    var typeName: String { "qr" }
    var text: String {
        "<QR code version \(code.version), \(code.size)×\(code.size) modules, error correction \(code.errorCorrection)>"
    }
    var fields: [(name: String, value: Value)] {
        [
            ("version", .int(code.version)), ("size", .int(code.size)),
            ("ecc", .string(code.errorCorrection.description)),
        ]
    }

    func drawing(on display: Display) -> String {
        var out = code.terminalText(margin: margin, color: display.color, lightDrawn: lightDrawn)
        let needs = code.terminalSize(margin: margin)
        if let size = display.size, needs.columns > size.columns || needs.rows + 1 > size.rows {
            out += "\n" + QRError.terminalTooSmall(needs: needs, has: size).description
        }
        return out
    }
}

extension Builtins {
    static let qrOptions = [
        OptionSpec(
            "ecc", .string,
            "error correction L, M, Q or H (default L for URs, M otherwise; raised while the size allows)"),
        OptionSpec("reveal", nil, "allow a secret: the code shows it to any camera that sees it"),
    ]

    static let qr: [Builtin] = [
        Builtin(
            "qr", params: [ParamSpec("value", .any)],
            options: qrOptions + [
                OptionSpec("margin", .int, "quiet modules around the code (default 2)", in: 0...16),
                OptionSpec("invert", nil, "without colour, draw the dark modules (for light terminals)"),
                OptionSpec(
                    "uri", nil, "an address as a payment URI: ethereum:ADDRESS (EIP-681) or bitcoin:ADDRESS (BIP-21)"),
                OptionSpec(
                    "chain", .int, "with --uri, the Ethereum chain id (ethereum:ADDRESS@CHAIN)", in: 1...Int(Int32.max),
                    rules: [.onlyWith("uri", because: "it goes with --uri")]),
            ],
            summary:
                "A value as a QR code drawn in the terminal: text, an address, an xpub, bytes, a UR (upper-cased).",
            example: "qr 0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
        ) { args in
            var payload = try qrPayload(args["value"], reveal: args.flag("reveal"))
            if args.flag("uri") {
                payload = try paymentURI(payload, chain: args.int("chain"))
            }
            let code = try QRCode(data: payload.bytes, text: payload.text, level: try eccOption(args) ?? payload.level)
            let margin = args.int("margin") ?? 2
            return .domain(QRValue(payload: payload, code: code, margin: margin, lightDrawn: !args.flag("invert")))
        },

        Builtin(
            "qr.save", params: [ParamSpec("value", .any), ParamSpec("file", .string)],
            options: qrOptions + [
                OptionSpec("scale", .int, "pixels (SVG units) per module (default 8)", in: 1...64),
                OptionSpec("margin", .int, "quiet modules around the code (default 4)", in: 0...16),
            ],
            summary:
                "Writes a value's QR code to FILE.png or FILE.svg; a list of UR parts to numbered frames FILE-0001.png, …; to FILE.gif an animation (200 ms a frame), a UR longer than one code's 200 bytes split into its parts.",
            example: "qr.save 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 \"address.png\""
        ) { args in
            guard let file = args.string("file") else { return .null }
            let scale = args.int("scale") ?? 8
            let margin = args.int("margin") ?? 4
            var values: [Value] = [args["value"] ?? .null]
            if case .list(let parts)? = args["value"] { values = parts }
            if case .string(let ur)? = args["value"], file.lowercased().hasSuffix(".gif"),
                let parts = try Session.animatedParts(ofUR: ur)
            {
                values = parts.map(Value.string)
            }
            let payloads = try values.map { try qrPayload($0, reveal: args.flag("reveal")) }
            let (files, code) = try args.session().saveQR(
                payloads, to: file, level: try eccOption(args), scale: scale, margin: margin)
            return .map(
                ValueMap([
                    ("files", .list(files.map(Value.string))), ("version", .int(code.version)),
                    ("size", .int(code.size)), ("ecc", .string(code.errorCorrection.description)),
                ]))
        },

        Builtin(
            "qr.play", params: [ParamSpec("ur", .oneOf([.string, .list]))],
            options: [
                OptionSpec("fps", .int, "frames a second (default 5, 1 to 20)", in: 1...20),
                OptionSpec(
                    "fragment", .int, "the largest fragment in bytes (default 200, as MetaMask and Keycard Shell read)",
                    in: 10...2_000),
            ],
            summary:
                "Plays a UR as an animated QR code in the terminal (its fragments, then fountain parts) until Ctrl-C; without a terminal, its parts one per line.",
            example: "qr.play (ur.encode \"bytes\" 0x4401020304)"
        ) { args in
            let resource = try URDecoder.decodeParts(try pathList(args["ur"]))
            let fps = args.int("fps") ?? 5
            let fragment = args.int("fragment") ?? 200
            guard let parts = try args.session().playQR(resource, fragment: fragment, fps: fps) else { return .null }
            return .string(parts.joined(separator: "\n"))
        },

        Builtin(
            "qr.scan",
            options: [OptionSpec("device", .string, "the camera (default: the first V4L2 lists, e.g. /dev/video0)")],
            summary:
                "What a camera shows: a QR code, or a multi-part UR read until complete (progress shown); Ctrl-C stops.",
            example: "qr.scan --device /dev/video0"
        ) { args in
            scannedValue(try args.session().scanCamera(device: args.string("device")))
        },

        Builtin(
            "qr.read", params: [ParamSpec("files", .oneOf([.string, .list]))],
            summary:
                "What the QR codes in PNG files (a file, a list, or a folder of frames) hold: a multi-part UR from its parts in any order, a mnemonic, an xpub, an address, a signing request, text.",
            example: "qr.read \"address.png\""
        ) { args in
            let session = try args.session()
            return scannedValue(try session.scanQR(try pathList(args["files"])))
        },
    ]

    /// The wallet flows over QR codes: air-gapped signing, watch-only export and its check.
    static let qrWallet: [Builtin] = [
        Builtin(
            "qr.sign", traits: [.mayOpenVault], qr: .field("ur"),
            params: [ParamSpec("request", .oneOf([.string, .list]))],
            options: [
                OptionSpec("yes", nil, "sign without asking (a batch run must give it)"),
                OptionSpec("full-data", nil, "the review shows a transaction's call data in full hex"),
                OptionSpec(
                    "allow-no-chain-id", nil,
                    "sign a legacy transaction without a chain id (pre-EIP-155: valid on every chain)"),
            ],
            summary:
                "Signs an eth-sign-request (PNG files or UR parts) with the active key or the card at its path, after showing its review; the eth-signature UR to show back.",
            example: "qr.sign \"request.png\" --yes"
        ) { args in
            let signed = try args.session().signAirGapped(
                sources: try pathList(args["request"]), yes: args.flag("yes"),
                allowNoChainID: args.flag("allow-no-chain-id"), fullData: args.flag("full-data"))
            // The one signature shape, with the request's own r ‖ s ‖ v (its v rule) as `answer`.
            var fields = signatureFields(signed.signed)
            fields += [
                ("digest", .bytes(signed.signed.digest)), ("answer", .bytes(signed.signature)),
                ("ur", .string(signed.ur)),
            ]
            if let id = signed.response.requestID { fields.append(("requestId", .bytes(id))) }
            return .map(ValueMap(fields))
        }
    ]

    static let qrWatchOnly: [Builtin] = [
        Builtin(
            "qr.export", traits: [.mayOpenVault], qr: .field("ur"),
            options: [
                OptionSpec(
                    "account", .int, "the Ethereum account N of m/44'/60'/N' (default 0)", in: 0...Int(Int32.max) - 5),
                OptionSpec(
                    "v2", nil, "write hdkey (tag 40303) instead of crypto-hdkey (MetaMask reads only crypto-hdkey)"),
                OptionSpec(
                    "for", .string,
                    "metamask (crypto-hdkey, the default), ledger-live (crypto-account of 5 Ledger Live accounts, MetaMask's pubkey mode) or sparrow (crypto-account of Bitcoin account N)",
                    choices: Session.WatchOnlyForm.allCases.map(\.rawValue)),
            ],
            summary:
                "The active HD key's (or the card's) Ethereum account as the crypto-hdkey a watch-only wallet pairs with (MetaMask's QR hardware wallet): UR, xpub, path, master fingerprint.",
            example: "qr.export --account 0"
        ) { args in
            let account = args.int("account") ?? 0
            let form = args.string("for").flatMap(Session.WatchOnlyForm.init(rawValue:)) ?? .metamask  // the table declares the choices
            if form != .metamask {
                let (ur, a) = try args.session().exportWatchOnlyAccount(form, account: UInt32(account))
                return .map(
                    ValueMap([
                        ("ur", .string(ur)),
                        ("masterFingerprint", .string(String(format: "%08x", a.masterFingerprint))),
                        ("outputs", .int(a.outputs.count)),
                    ]))
            }
            let a = try args.session().exportWatchOnly(account: UInt32(account), v2: args.flag("v2"))
            return .map(
                ValueMap([
                    ("ur", .string(a.ur)), ("xpub", .string(a.xpub)), ("path", .string(a.path.description)),
                    ("masterFingerprint", .string(String(format: "%08x", a.masterFingerprint))),
                ]))
        },

        Builtin(
            "qr.verify", params: [ParamSpec("files", .oneOf([.string, .list]))],
            options: [
                OptionSpec(
                    "max-index", .int, "the largest account and index tried (default 20, at most 100)", in: 0...100)
            ],
            summary:
                "Checks what a watch-only wallet shows back (a receive address or an xpub QR) against the active HD key or the card: the path that makes it, or verified false.",
            example: "qr.verify \"receive.png\""
        ) { args in
            let maxIndex = args.int("max-index") ?? 20
            let check = try args.session().verifyWatchOnly(try pathList(args["files"]), maxIndex: UInt32(maxIndex))
            var fields: [(String, Value)] = [("shown", .string(check.shown)), ("verified", .bool(check.path != nil))]
            if let path = check.path { fields.append(("path", .string(path.description))) }
            fields.append(("searched", .int(check.searched)))
            return .map(ValueMap(fields))
        },
    ]

    /// `builtin` with a `--qr` option when its table entry declares a value with a natural QR
    /// form (`Builtin.qr`): `--qr` draws that value (the result, or one of its fields) as a QR
    /// code instead.
    static func withQROption(_ builtin: Builtin) -> Builtin {
        guard let form = builtin.qr else { return builtin }
        let field: String? = if case .field(let name) = form { name } else { nil }
        let body = builtin.body
        return Builtin(
            builtin.name, traits: builtin.traits, qr: form, aliases: builtin.aliases, params: builtin.params,
            options: builtin.options + [OptionSpec("qr", nil, "show the \(field ?? "value") as a QR code")],
            summary: builtin.summary, example: builtin.example
        ) { args in
            let value = try body(args)
            guard args.flag("qr") else { return value }
            var shown = value
            if let field {
                // card.export gives an xpub only when asked; else its address.
                func pick(_ name: String) -> Value? {
                    switch value {
                    case .map(let m): m[name]
                    case .domain(let d): d.field(name)
                    default: nil
                    }
                }
                guard let v = pick(field) ?? (field == "xpub" ? pick("address") : nil) else { return value }
                shown = v
            }
            // A UR too long for one code is played as an animation (docs/ur.md, "Showing").
            if case .string(let text) = shown, try args.session().showUR(text) != .oneCode { return value }
            let payload = try qrPayload(shown, reveal: args.flag("reveal"))
            return .domain(
                QRValue(
                    payload: payload, code: try QRCode(data: payload.bytes, text: payload.text, level: payload.level),
                    margin: 2, lightDrawn: true))
        }
    }

    /// `files`: one path or a list of paths.
    static func pathList(_ value: Value?) throws -> [String] {
        switch value {
        case .string(let s)?: return [s]
        case .list(let items)?:
            return try items.map { item in
                guard case .string(let s) = item else {
                    throw BuiltinError.outOfRange(name: "files", expected: "file names (strings)", got: item.typeName)
                }
                return s
            }
        default: return []
        }
    }

    static func eccOption(_ args: CallArguments) throws -> QRCode.ErrorCorrection? {
        guard let letter = args.string("ecc") else { return nil }
        guard let level = QRCode.ErrorCorrection(letter: letter) else {
            throw BuiltinError.badChoice(option: "ecc", expected: ["L", "M", "Q", "H"], got: letter)
        }
        return level
    }

    /// True when `text` has the shape of key material (`SecretShape`: words, a WIF, an xprv, 32 or
    /// 64 bytes of hex): drawn only with `--reveal`, and written owner-only.
    static func secretByShape(_ text: String, reveal: Bool) throws -> Bool {
        guard let shape = SecretShape.of(text) else { return false }
        guard reveal else {
            let what =
                switch shape {
                case .mnemonic: "BIP-39 words"
                case .hexKey: "a private key or seed in hex"
                case .extendedPrivateKey: "an extended private key"
                case .wif: "a WIF private key"
                }
            throw BuiltinError.optionNotApplicable(
                option: "value",
                reason: "it looks like \(what) (key material held as plain text),"
                    + " and a QR code shows it to any camera; give --reveal to draw it anyway")
        }
        return true
    }

    /// The bytes a value's QR code holds, whether libqrencode may pick text segments, and the
    /// default error correction (L for a UR, as every wallet writes them; M otherwise).
    static func qrPayload(_ value: Value?, reveal: Bool) throws -> QRPayload {
        switch value {
        case .string(let s)?:
            let lower = s.lowercased()
            // A seed or words in a UR are as secret as a secret value (their file is owner-only).
            let seed = ["ur:crypto-seed/", "ur:seed/", "ur:crypto-bip39/"].contains(where: lower.hasPrefix)
            if lower.hasPrefix("ur:") {
                return QRPayload(bytes: Array(s.uppercased().utf8), text: true, level: .low, secret: seed)
            }
            // Secrecy by content, as the history judges it: words, a WIF, an xprv or key hex held as plain text.
            let secret = try secretByShape(s, reveal: reveal)
            return QRPayload(bytes: Array(s.utf8), text: true, level: .medium, secret: secret)
        case .bytes(let b)?:
            // A bare 0x… word of 20 bytes is an address (as everywhere in the language): its EIP-55 text.
            if b.count == 20, let a = try? EthereumAddress(bytes: b) {
                return QRPayload(bytes: Array(a.checksummed.utf8), text: true, level: .medium, secret: false)
            }
            let secret = try secretByShape(Hex.encodePrefixed(b), reveal: reveal)
            return QRPayload(bytes: b, text: false, level: .medium, secret: secret)
        case .secret(let s)?:
            guard reveal else {
                throw BuiltinError.optionNotApplicable(
                    option: "value",
                    reason:
                        "it is a secret \(s.kind), and a QR code shows it to any camera; give --reveal to draw it anyway"
                )
            }
            return QRPayload(
                bytes: try secretBytes(s).bytesCopy, text: SecretKind(rawValue: s.kind)?.isText ?? false,
                level: .medium,
                secret: true)
        case .domain(let q as QRValue)?: return q.payload
        case .domain(let d)?: return QRPayload(bytes: Array(d.text.utf8), text: true, level: .medium, secret: false)
        case .int, .bigInt, .bool:
            return QRPayload(bytes: Array(value!.text.utf8), text: true, level: .medium, secret: false)
        default:
            throw BuiltinError.outOfRange(
                name: "value", expected: "text, bytes, an address, a key or a UR part",
                got: value?.typeName ?? "nothing")
        }
    }

    /// An address as the payment URI wallets scan: `ethereum:` (EIP-681, with `@chain`) for an
    /// Ethereum address, `bitcoin:` (BIP-21) for a Bitcoin one.
    static func paymentURI(_ payload: QRPayload, chain: Int?) throws -> QRPayload {
        let text = String(decoding: payload.bytes, as: UTF8.self)
        let uri: String
        switch try? PathSearch.Target.parse(text) {
        case .ethereum(let a)?: uri = "ethereum:" + a.checksummed + (chain.map { "@\($0)" } ?? "")
        case .bitcoin(_, let normalised)?:
            guard chain == nil else {
                throw BuiltinError.optionNotApplicable(option: "chain", reason: "a Bitcoin address has no chain id")
            }
            // A bech32 address may be written upper case (BIP-173), and the scheme is any case (BIP-21):
            // all upper case, the URI is alphanumeric and the code smaller.
            uri = normalised.hasPrefix("bc1") ? "BITCOIN:" + normalised.uppercased() : "bitcoin:" + normalised
        default:
            throw BuiltinError.optionNotApplicable(
                option: "uri", reason: "the value is not an Ethereum or Bitcoin address")
        }
        return QRPayload(bytes: Array(uri.utf8), text: true, level: .medium, secret: false)
    }

    /// A scanned code as a record: `kind` and what it holds (secrets as secrets).
    /// An EIP-681 request as data: the target, the chain (id and name), the amount in wei and in
    /// the chain's currency, the call and its parameters; an ERC-20 `transfer`'s recipient and
    /// amount (in the token's units) by name.
    static func paymentFields(_ p: PaymentRequest, text: String) -> [(String, Value)] {
        var fields: [(String, Value)] = [
            ("kind", .string("payment")), ("form", .string("EIP-681 URI")), ("uri", .string(text)),
        ]
        if let f = p.function, f == "transfer", let to = p.parameter("address"), let amount = p.parameter("uint256") {
            fields += [
                ("token", .string(p.target.checksummed)), ("to", .string((try? EthereumAddress(to).checksummed) ?? to)),
                ("tokenAmount", .string(amount)),
            ]
        } else {
            fields.append(("address", .string(p.target.checksummed)))
        }
        if let chain = p.chainID {
            fields += [("chainId", uintValue(chain)), ("chain", .string(EthereumChain.label(chain)))]
        }
        if let value = p.value {
            fields += [
                ("value", uintValue(value)),
                ("amount", .string(SigningReview.amount(value, symbol: EthereumChain.symbol(p.chainID)))),
            ]
        }
        if let f = p.function { fields.append(("function", .string(f))) }
        if !p.parameters.isEmpty {
            fields.append(("parameters", .map(ValueMap(p.parameters.map { ($0.key, .string($0.value)) }))))
        }
        return fields
    }

    static func scannedValue(_ s: Scanned) -> Value {
        var fields: [(String, Value)] = []
        switch s {
        case .mnemonic(let m, let form):
            fields = [
                ("kind", .string("mnemonic")), ("form", .string(form)), ("words", .int(m.wordCount.rawValue)),
                ("mnemonic", SecretKind.mnemonic.value(m.withPhrase { Secret(utf8: $0) })),
            ]
        case .extendedPublicKey(let key, let text, let form, let origin):
            fields = [("kind", .string("xpub")), ("form", .string(form)), ("xpub", .string(text))]
            if let origin {
                fields.append(("path", .string(origin.text)))
                if let f = origin.sourceFingerprint {
                    fields.append(("masterFingerprint", .string(String(format: "%08x", f))))
                }
            }
            fields.append(
                ("address", .string((try? EthereumAddress(publicKey: key.derive("0/0").publicKey).checksummed) ?? "")))
        case .address(let a, let form):
            fields = [("kind", .string("address")), ("form", .string(form)), ("address", .string(a.checksummed))]
        case .payment(let p, let text):
            fields = paymentFields(p, text: text)
        case .account(let a):
            fields = [
                ("kind", .string("crypto-account")),
                ("masterFingerprint", .string(String(format: "%08x", a.masterFingerprint))),
                (
                    "outputs",
                    .list(
                        a.outputs.map { o in
                            var f: [(String, Value)] = [("scripts", .string(o.scriptNames.joined(separator: "/")))]
                            if let k = o.hdKey {
                                f.append(("path", .string(k.origin?.text ?? "")))
                                f.append(("xpub", .string((try? k.extendedKey().description) ?? "")))
                            }
                            return .map(ValueMap(f))
                        })
                ),
            ]
        case .signRequest(let r):
            fields = [
                ("kind", .string("eth-sign-request")), ("dataType", .string(String(describing: r.dataType))),
                ("path", .string(r.path.text)), ("signData", .bytes(r.signData)),
            ]
            if let f = r.path.sourceFingerprint {
                fields.append(("masterFingerprint", .string(String(format: "%08x", f))))
            }
            if let c = r.chainID { fields.append(("chainId", .int(c))) }
            if let a = r.address, let addr = try? EthereumAddress(bytes: a) {
                fields.append(("address", .string(addr.checksummed)))
            }
            if let id = r.requestID { fields.append(("requestId", .bytes(id))) }
            if let o = r.origin { fields.append(("origin", .string(o))) }
        case .signature(let sig):
            fields = [("kind", .string("eth-signature")), ("signature", .bytes(sig.signature))]
            if let id = sig.requestID { fields.append(("requestId", .bytes(id))) }
            if let o = sig.origin { fields.append(("origin", .string(o))) }
        case .psbt(let p, let type):
            // The map psbt.show and psbt.sign take; `urType` sends the answer back in the same type.
            fields = [("kind", .string("psbt")), ("urType", .string(type))] + psbtSummary(p)
        case .resource(let r): fields = [("kind", .string("ur")), ("type", .string(r.type)), ("cbor", .bytes(r.cbor))]
        case .text(let t): fields = [("kind", .string("text")), ("text", .string(t))]
        case .bytes(let b): fields = [("kind", .string("bytes")), ("bytes", .bytes(b))]
        }
        return .map(ValueMap(fields))
    }
}

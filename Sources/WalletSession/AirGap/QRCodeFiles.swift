import Foundation
import KCSErrors
import QRCodes
import WalletCore
import WalletCrypto
import WalletStore

// QR codes in image files (docs/qr.md): written as PNG or SVG (one code, or numbered frames for
// the parts of a multi-part UR), and read — one code, or the parts of a multi-part UR in any
// order with repeats — then what kcs can do with what they hold: a key to import (the app's "QR
// code" way to create a key), an Ethereum signing request, an account.

/// Every way reading or using a QR code fails; each names the file.
public enum QRScanError: WalletError, Equatable {
    case unreadable(file: String)
    case tooLarge(file: String, bytes: Int)
    case notPNG(file: String)
    case image(file: String, reason: String)
    case noCode(file: String)
    case noFiles(path: String)
    case ur(file: String, URError)
    case incomplete(fragments: Int, of: Int, parts: Int)
    case mixed(file: String)
    case notAKey(holds: String)
    case onlyForMnemonic(option: String, holds: String)
    case ambiguousKey(seedAddress: String, keyAddress: String)
    case readingNotApplicable(holds: String)
    case fileType(file: String)
    case noCamera
    case notACamera(device: String, cameras: [String])

    public var id: String {
        switch self {
        case .unreadable: "qr.unreadable"
        case .tooLarge: "qr.fileTooLarge"
        case .notPNG: "qr.notPNG"
        case .image: "qr.image"
        case .noCode: "qr.noCode"
        case .noFiles: "qr.noFiles"
        case .ur(_, let e): e.id
        case .incomplete: "qr.incomplete"
        case .mixed: "qr.mixed"
        case .notAKey: "qr.notAKey"
        case .onlyForMnemonic: "qr.onlyForMnemonic"
        case .ambiguousKey: "qr.ambiguousKey"
        case .readingNotApplicable: "qr.readingNotApplicable"
        case .fileType: "qr.fileType"
        case .noCamera: "qr.noCamera"
        case .notACamera: "qr.notACamera"
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let file): "\(file): no such file or not readable"
        case .tooLarge(let file, let bytes): "\(file): \(bytes) bytes, more than the 64 MiB an image may have here"
        case .notPNG(let file): "\(file): not a PNG, JPEG or GIF image"
        case .image(let file, let reason): "\(file): \(reason)"
        case .noCode(let file): "\(file): no QR code found in the image"
        case .noFiles(let path): "\(path): a folder without PNG images"
        case .ur(let file, let e): "\(file): \(e.description)"
        case .incomplete(let fragments, let of, let parts):
            "the multi-part UR is incomplete: \(fragments) of \(of) fragments recovered from \(parts) parts; read more frames"
        case .mixed(let file): "\(file): a UR part among codes that are not UR parts (one thing per reading)"
        case .notAKey(let holds):
            "the QR code holds \(holds)" + (holds.contains(" where ") ? "" : ", not a key to import")
        case .onlyForMnemonic(let option, let holds):
            "--\(option) applies to a mnemonic, and the QR code holds \(holds)"
        case .ambiguousKey(let seedAddress, let keyAddress):
            "the QR code holds 32 bytes, which are a CompactSeedQR of 24 words (first address \(seedAddress)) or a private "
                + "key (address \(keyAddress)): say which with --as seedqr or --as privkey; nothing was stored"
        case .readingNotApplicable(let holds):
            "--as chooses how to read a code of 32 bytes (a CompactSeedQR or a private key), and the QR code holds \(holds)"
        case .fileType(let file): "\(file): a QR code is written as FILE.png, FILE.svg or (animated) FILE.gif"
        case .noCamera:
            "no camera found (V4L2 lists none in /sys/class/video4linux): read image files with qr.read instead"
        case .notACamera(let device, let cameras):
            "\(device) is not a camera V4L2 lists ("
                + (cameras.isEmpty ? "it lists none" : cameras.joined(separator: ", ")) + ")"
        }
    }
}

/// What one QR code is to hold.
public struct QRPayload: Sendable {
    public let bytes: [UInt8]
    /// libqrencode may pick numeric and alphanumeric segments (no zero byte).
    public let text: Bool
    /// The error correction to start from.
    public let level: QRCode.ErrorCorrection
    /// A secret (or a seed in a UR): its file is owner-only.
    public let secret: Bool

    public init(bytes: [UInt8], text: Bool, level: QRCode.ErrorCorrection, secret: Bool) {
        self.bytes = bytes
        self.text = text
        self.level = level
        self.secret = secret
    }
}

/// One QR code found in a file.
public struct ScannedCode: Sendable, Equatable {
    public let file: String
    public let payload: [UInt8]
}

/// What the codes read hold.
public enum Scanned: Sendable {
    /// A BIP-39 mnemonic, and the form it came in (`crypto-seed`, `crypto-bip39`, `SeedQR`,
    /// `CompactSeedQR`, `words`).
    case mnemonic(Mnemonic, form: String)
    /// An extended public key (watch-only), its text, the form (`crypto-hdkey`, `xpub`) and the
    /// origin path and master fingerprint when the code says them.
    case extendedPublicKey(ExtendedKey, text: String, form: String, origin: URKeypath?)
    case address(EthereumAddress, form: String)
    /// An EIP-681 `ethereum:` URI with more than an address: its chain, amount or call.
    case payment(PaymentRequest, text: String)
    case account(URAccount)
    case signRequest(ETHSignRequest)
    case signature(ETHSignature)
    /// A PSBT (`ur:crypto-psbt`, `ur:psbt`), and the type it came as (the answer goes back in it).
    case psbt(PSBT, type: String)
    /// Another UR type.
    case resource(UniformResource)
    case text(String)
    case bytes([UInt8])

    /// What it is, in a few words.
    public var kind: String {
        switch self {
        case .mnemonic(_, let form): "a mnemonic (\(form))"
        case .extendedPublicKey(_, _, let form, _): "an extended public key (\(form))"
        case .address: "an address"
        case .payment: "a payment request (EIP-681)"
        case .account: "an account (crypto-account)"
        case .signRequest: "an Ethereum signing request (eth-sign-request)"
        case .signature: "an Ethereum signature (eth-signature)"
        case .psbt(_, let type): "a PSBT (\(type))"
        case .resource(let r): "a ur:\(r.type)"
        case .text: "text"
        case .bytes: "binary data"
        }
    }
}

extension Session {
    /// The largest image file read.
    static let maximumImageFile = 64 << 20

    /// The QR codes in `paths` (PNG, JPEG or GIF files — a GIF's every frame —, or folders whose images are read in name order).
    public func readQRCodes(_ paths: [String]) throws -> [ScannedCode] {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
                    .filter { name in [".png", ".jpg", ".jpeg", ".gif"].contains { name.lowercased().hasSuffix($0) } }
                    .sorted()
                guard !names.isEmpty else { throw QRScanError.noFiles(path: path) }
                files += names.map { (path.hasSuffix("/") ? path : path + "/") + $0 }
            } else {
                files.append(path)
            }
        }
        // Decoding runs where Ctrl-C can leave it behind (`abandonable`); the bounds of
        // `codes(in:)` limit what it wastes.
        let list = files
        return try abandonable { try Self.codes(in: list) }
    }

    /// The QR codes of image files, within the bounds of docs/qr.md ("Bounds"): a regular file
    /// of at most 64 MiB, its size checked before it is read; at most
    /// `GrayImage.maximumPixelsPerReading` pixels decoded across all the files.
    static func codes(in files: [String]) throws -> [ScannedCode] {
        var codes: [ScannedCode] = []
        var pixels = 0
        for file in files {
            let data: [UInt8]
            switch BoundedFile.read(file, maximumBytes: Self.maximumImageFile) {
            case .bytes(let b): data = b
            case .tooLarge(let size): throw QRScanError.tooLarge(file: file, bytes: size)
            case .unreadable: throw QRScanError.unreadable(file: file)
            }
            if pixels >= GrayImage.maximumPixelsPerReading {
                throw QRScanError.image(
                    file: file,
                    reason: "the images before it hold \(pixels) pixels, as many as one reading decodes"
                        + " (\(GrayImage.maximumPixelsPerReading)); read fewer or smaller images")
            }
            var found: [[UInt8]] = []
            do {
                guard let images = try GrayImage.images(file: data) else { throw QRScanError.notPNG(file: file) }
                for image in images { found += try image.qrCodes() }
                pixels += images.reduce(0) { $0 + $1.pixelCount }
            } catch let error as QRError {
                throw QRScanError.image(file: file, reason: error.description)
            }
            guard !found.isEmpty else { throw QRScanError.noCode(file: file) }
            codes += found.map { ScannedCode(file: file, payload: $0) }
        }
        return codes
    }

    /// What the codes hold: the parts of one UR (any order, repeats), or one code.
    public static func interpret(_ codes: [ScannedCode]) throws -> Scanned {
        let isUR = { (c: ScannedCode) in
            c.payload.count > 3 && String(decoding: c.payload.prefix(3), as: UTF8.self).lowercased() == "ur:"
        }
        if let first = codes.first, isUR(first) {
            var decoder = URDecoder()
            for code in codes where decoder.result == nil {
                guard isUR(code) else { throw QRScanError.mixed(file: code.file) }
                do { try decoder.receive(String(decoding: code.payload, as: UTF8.self)) } catch {
                    throw QRScanError.ur(file: code.file, error)
                }
            }
            guard let resource = decoder.result else {
                let p = decoder.progress
                throw QRScanError.incomplete(
                    fragments: p?.fragments ?? 0, of: p?.of ?? 0, parts: p?.parts ?? codes.count)
            }
            do { return try interpret(resource) } catch let e as URError { throw QRScanError.ur(file: first.file, e) }
        }
        guard codes.count == 1, let code = codes.first else {
            throw QRScanError.mixed(file: codes.dropFirst().first(where: isUR)?.file ?? codes.last?.file ?? "")
        }
        return interpret(payload: code.payload)
    }

    /// A complete UR, by type.
    public static func interpret(_ r: UniformResource) throws -> Scanned {
        let item: CBOR
        do { item = try CBOR(decoding: r.cbor) } catch { throw URError.cbor(error) }
        switch r.type {
        case "crypto-seed", "seed":
            let seed = try URSeed(cbor: item)
            do { return .mnemonic(try Mnemonic(entropy: seed.payload), form: r.type) } catch {
                throw URError.invalidPart("\(r.type): the seed is not BIP-39 entropy (16 to 32 bytes, a multiple of 4)")
            }
        case "crypto-bip39":
            let words = try URBIP39(cbor: item)
            do { return .mnemonic(try Mnemonic(phrase: words.words), form: r.type) } catch {
                throw URError.invalidPart("crypto-bip39: \(error)")
            }
        case "crypto-hdkey", "hdkey":
            let key = try URHDKey(cbor: item)
            guard !key.isPrivate else {
                throw URError.invalidPart("\(r.type): a private HD key; kcs imports extended public keys from QR codes")
            }
            let ext = try key.extendedKey()
            return .extendedPublicKey(ext, text: ext.description, form: r.type, origin: key.origin)
        case "crypto-account", "account-descriptor": return .account(try URAccount(cbor: item))
        case "eth-sign-request": return .signRequest(try ETHSignRequest(cbor: item))
        case "eth-signature": return .signature(try ETHSignature(cbor: item))
        case "crypto-psbt", "psbt":
            // A byte string (BCR-2020-006); some senders wrap it in its tag (310 or 40310).
            var inner = item
            if case .tagged(let t, let wrapped) = item, t == 310 || t == 40310 { inner = wrapped }
            guard case .bytes(let bytes) = inner else { throw URError.invalidPart("\(r.type): expected a byte string") }
            do { return .psbt(try PSBT.parse(bytes), type: r.type) } catch {
                throw URError.invalidPart("\(r.type): \(error)")
            }
        default: return .resource(r)
        }
    }

    /// One code that is not a UR: SeedQR digits, BIP-39 words, an xpub, an address or an
    /// `ethereum:` URI, 16 or 32 bytes of CompactSeedQR entropy; else text or bytes.
    public static func interpret(payload: [UInt8]) -> Scanned {
        guard !payload.contains(0), let text = String(validating: payload, as: UTF8.self) else {
            if payload.count == 16 || payload.count == 32, let m = try? Mnemonic(entropy: payload) {
                return .mnemonic(m, form: "CompactSeedQR")
            }
            return .bytes(payload)
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // SeedQR: 4 decimal digits per word (its index in the English list), 12 to 24 words.
        if trimmed.count % 4 == 0, (48...96).contains(trimmed.count), trimmed.allSatisfy(\.isASCII),
            trimmed.allSatisfy(\.isNumber)
        {
            let chars = Array(trimmed)
            let list = Wordlist.Language.english.wordlist.words
            let indexes = stride(from: 0, to: chars.count, by: 4).compactMap { Int(String(chars[$0..<$0 + 4])) }
            if indexes.allSatisfy({ $0 < list.count }),
                let m = try? Mnemonic(phrase: indexes.map { list[$0] }.joined(separator: " "), language: .english)
            {
                return .mnemonic(m, form: "SeedQR")
            }
        }
        if (12...24).contains(trimmed.split(separator: " ").count), let m = try? Mnemonic(phrase: trimmed) {
            return .mnemonic(m, form: "words")
        }
        if let key = try? ExtendedKey(trimmed), !key.isPrivate {
            return .extendedPublicKey(key, text: trimmed, form: "xpub", origin: nil)
        }
        // An EIP-681 URI keeps its chain, amount and call; one with only an address is an address.
        if let request = try? PaymentRequest.parse(trimmed) {
            if request.chainID == nil, request.function == nil, request.parameters.isEmpty {
                return .address(request.target, form: "EIP-681 URI")
            }
            return .payment(request, text: trimmed)
        }
        if let a = try? EthereumAddress(trimmed) { return .address(a, form: "address") }
        // Random entropy is printable text with odds of about 1 in 10⁷ (16 bytes): printable text is text.
        let printable = payload.allSatisfy { (0x20...0x7E).contains($0) }
        if !printable, payload.count == 16 || payload.count == 32, let m = try? Mnemonic(entropy: payload) {
            return .mnemonic(m, form: "CompactSeedQR")
        }
        return .text(text)
    }

    /// `qr.save`: writes each payload's QR code to `file` (`.png` or `.svg`), or for several to
    /// numbered frames `NAME-0001.png`, …, or all of them to one animated `.gif`; atomically,
    /// owner-only for a secret. Returns the files and the last code.
    public func saveQR(
        _ payloads: [QRPayload], to file: String, level: QRCode.ErrorCorrection?, scale: Int,
        margin: Int
    ) throws -> (files: [String], last: QRCode) {
        let lower = file.lowercased()
        let mode = payloads.contains(where: \.secret) ? mode_t(0o600) : 0o644
        if lower.hasSuffix(".gif"), !payloads.isEmpty {
            // One animated GIF, 200 ms a frame (what UR readers expect), every frame on one square.
            let codes = try payloads.map { try QRCode(data: $0.bytes, text: $0.text, level: level ?? $0.level) }
            let modules = codes.map(\.size).max()! + 2 * margin
            try AtomicFile.write(
                try GrayImage.animatedGIF(
                    codes.map { $0.image(scale: scale, margin: margin, side: modules) }, delay: 20),
                to: file, mode: mode)
            return ([file], codes.last!)
        }
        guard lower.hasSuffix(".png") || lower.hasSuffix(".svg"), !payloads.isEmpty else {
            throw QRScanError.fileType(file: file)
        }
        var files: [String] = [], last: QRCode?
        for (i, p) in payloads.enumerated() {
            let code = try QRCode(data: p.bytes, text: p.text, level: level ?? p.level)
            let name =
                payloads.count == 1
                ? file : String(file.dropLast(4)) + String(format: "-%04d", i + 1) + String(file.suffix(4))
            let bytes =
                lower.hasSuffix(".svg")
                ? Array(code.svg(scale: scale, margin: margin).utf8)
                : try code.image(scale: scale, margin: margin).png()
            try AtomicFile.write(bytes, to: name, mode: mode)
            files.append(name)
            last = code
        }
        return (files, last!)
    }

    /// The fragment size of a UR shown as an animated code: what MetaMask and Keycard Shell read.
    public static let animatedFragment = 200

    /// The parts of the UR `text` as an animation shows them (its fragments in order, at most
    /// `fragment` bytes each), or nil when one code holds it.
    public static func animatedParts(ofUR text: String, fragment: Int = animatedFragment) throws -> [String]? {
        guard text.lowercased().hasPrefix("ur:"), !text.contains("\n") else { return nil }
        var encoder = UREncoder(try URDecoder.decodeParts([text]), maxFragmentLength: fragment)
        guard !encoder.isSinglePart else { return nil }
        return (0..<encoder.sequenceLength).map { _ in encoder.nextPart() }
    }

    /// How `--qr` showed a UR (`showUR`).
    public enum URShown: Sendable, Equatable {
        /// One code holds it: the caller draws it.
        case oneCode
        /// Played as an animation at the terminal, until Ctrl-C.
        case played
        /// No terminal to play it on: a warning named the ways to show it.
        case described
    }

    /// `--qr` of a command's UR text: a UR too long for one code a camera reads is played as
    /// `qr.play` plays it at a terminal; elsewhere a warning names the ways to show it. The UR is
    /// decoded once.
    public func showUR(_ text: String) throws -> URShown {
        guard text.lowercased().hasPrefix("ur:"), !text.contains("\n") else { return .oneCode }
        let resource = try URDecoder.decodeParts([text])
        guard !UREncoder(resource, maxFragmentLength: Self.animatedFragment).isSinglePart else { return .oneCode }
        guard let parts = try playQR(resource, fragment: Self.animatedFragment, fps: 5) else { return .played }
        prompts?.warn(
            "--qr: this UR needs \(parts.count) codes of \(Self.animatedFragment) bytes, one after another: at a terminal "
                + "--qr plays them (as qr.play does), and qr.save UR \"FILE.gif\" writes them as an animated GIF")
        return .described
    }

    /// `qr.play`: the parts of `resource` as an animated QR code on the terminal — the fragments
    /// in order, then fountain parts without end — until Ctrl-C; nil once played. Where nobody
    /// watches (no terminal), the parts one needs, as text (one per fragment).
    public func playQR(_ resource: UniformResource, fragment: Int, fps: Int) throws -> [String]? {
        var encoder = UREncoder(resource, maxFragmentLength: fragment)
        let count = encoder.isSinglePart ? 1 : encoder.sequenceLength
        var shown = 0
        let played =
            try prompts?.play(
                { color in
                    let part = encoder.nextPart()
                    shown += 1
                    let code = try QRCode(data: Array(part.uppercased().utf8), text: true, level: .low)
                    let kind =
                        encoder.isSinglePart
                        ? "single part" : shown <= count ? "fragment \(shown) of \(count)" : "fountain part \(shown)"
                    return code.terminalText(margin: 2, color: color) + "\n\(kind) · \(fps) fps · Ctrl-C stops"
                }, interval: 1 / Double(fps)) ?? false
        if played { return nil }
        var parts = UREncoder(resource, maxFragmentLength: fragment)
        return (0..<count).map { _ in parts.nextPart() }
    }

    /// `qr.scan`: what the camera (`device`, else the first V4L2 lists) shows: the first code
    /// that is not a UR part, or a multi-part UR once complete, its progress shown as it comes
    /// ("UR 7 of 10 fragments, 12 parts read"); Ctrl-C stops with `session.cancelled`.
    public func scanCamera(device: String?) throws -> Scanned {
        let cameras = QRCamera.devices().map(\.device)
        guard let device = device ?? cameras.first else { throw QRScanError.noCamera }
        guard cameras.contains(device) else { throw QRScanError.notACamera(device: device, cameras: cameras) }
        let camera: QRCamera
        do { camera = try QRCamera(device: device) } catch {
            throw QRScanError.image(file: device, reason: error.description)
        }
        var decoder = URDecoder()
        defer { prompts?.progress(nil) }
        while true {
            if prompts?.shouldInterrupt() == true { throw SessionError.cancelled }
            let codes: [[UInt8]]
            do { codes = try camera.nextCodes(waiting: 200) } catch {
                throw QRScanError.image(file: device, reason: error.description)
            }
            for payload in codes {
                let text = String(decoding: payload, as: UTF8.self)
                guard text.lowercased().hasPrefix("ur:") else { return Self.interpret(payload: payload) }
                // A frame of another UR or a damaged part is skipped: the camera keeps looking.
                _ = try? decoder.receive(text)
                if let resource = decoder.result { return try Self.interpret(resource) }
                if let p = decoder.progress {
                    prompts?.progress(
                        "UR \(p.fragments) of \(p.of) fragments, \(p.parts) parts read, \(100 * p.fragments / max(1, p.of)) %"
                    )
                }
            }
        }
    }

    /// `qr.read`: what the QR codes in `paths` hold.
    public func scanQR(_ paths: [String]) throws -> Scanned { try Self.interpret(readQRCodes(paths)) }

    /// `import qr`: the key the QR codes in `paths` hold, stored (see `importScanned`).
    public func importQR(
        _ paths: [String], name: String?, preset: PathPreset?, customPath: String?,
        accounts: Int?, reading: QRKeyReading? = nil
    ) throws -> [KeyRecord] {
        let scanned = try scanQR(paths)
        // 32 bytes are a CompactSeedQR of 24 words or a private key: two keys, told apart only by the person.
        guard case .mnemonic(let m, form: "CompactSeedQR") = scanned, m.wordCount == .twentyFour else {
            if reading != nil { throw QRScanError.readingNotApplicable(holds: scanned.kind) }
            return try importScanned(scanned, name: name, preset: preset, customPath: customPath, accounts: accounts)
        }
        switch reading {
        case .seedQR?:
            return try importScanned(scanned, name: name, preset: preset, customPath: customPath, accounts: accounts)
        case .privateKey?:
            for (option, given) in [("preset", preset != nil || customPath != nil), ("accounts", accounts != nil)]
            where given {
                throw QRScanError.onlyForMnemonic(option: option, holds: "a private key (read --as privkey)")
            }
            return [try importPrivateKey(try PrivateKey(m.entropy), name: name, source: .privkey)]
        case nil:
            let first = try ExtendedKey.master(seed: m.seed()).derive(try DerivationPath("m/44'/60'/0'/0/0")).publicKey
            throw QRScanError.ambiguousKey(
                seedAddress: EthereumAddress(publicKey: first).checksummed,
                keyAddress: EthereumAddress(publicKey: try PrivateKey(m.entropy).publicKey).checksummed)
        }
    }

    /// How `import qr --as` reads a code of 32 bytes.
    public enum QRKeyReading: String, Sendable, CaseIterable {
        case seedQR = "seedqr"
        case privateKey = "privkey"
    }

    /// `import qr`: stores the key a QR code holds — a mnemonic as an HD-MASTER key (and its
    /// preset's accounts), an xpub or an address as a watch-only key.
    /// `preset`, `customPath` and `accounts` (default 1) apply to a mnemonic only.
    public func importScanned(
        _ scanned: Scanned, name: String?, preset: PathPreset?, customPath: String?,
        accounts: Int?
    ) throws -> [KeyRecord] {
        if case .mnemonic(let m, _) = scanned {
            return try importMnemonic(
                m, passphrase: nil, preset: preset, customPath: customPath, accounts: accounts ?? 1,
                name: name, source: .mnemonic)
        }
        for (option, given) in [("preset", preset != nil || customPath != nil), ("accounts", accounts != nil)]
        where given {
            throw QRScanError.onlyForMnemonic(option: option, holds: scanned.kind)
        }
        switch scanned {
        case .extendedPublicKey(let key, let text, _, _):
            return [try importWatchOnly(xpub: key, text: text, name: name)]
        case .address(let a, _): return [try importWatchOnly(address: a, name: name)]
        case .payment(let p, _): return [try importWatchOnly(address: p.target, name: name)]
        default: throw QRScanError.notAKey(holds: scanned.kind)
        }
    }
}

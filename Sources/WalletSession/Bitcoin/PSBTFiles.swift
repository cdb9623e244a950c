import Foundation
import WalletCore
import WalletCrypto

// PSBTs as a person names them (docs/bitcoin.md, "PSBT files"): base64 or hex text, or a file
// (binary `.psbt` or text) read once with a bound; written back as binary to a `.psbt` name,
// else as base64 text, atomically. And the roles that need no key: finalize, extract, combine.

public enum PSBTFileError: WalletError, Equatable {
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)
    case chain(given: String)

    public var id: String {
        switch self {
        case .unreadable: "psbt.unreadableFile"
        case .unwritable: "psbt.unwritableFile"
        case .chain: "psbt.unknownChain"
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let p, let reason): "cannot read the PSBT file \(p): \(reason)"
        case .unwritable(let p, let reason): "cannot write \(p): \(reason)"
        case .chain(let given):
            "--chain: expected main, test, testnet4, signet or regtest, got \(given)"
        }
    }
}

extension Session {
    /// The PSBT `text` holds (base64 or hex) or the file it names.
    public func readPSBT(_ text: String) throws -> PSBT {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.hasPrefix("cHNidP8") || t.hasPrefix("70736274ff") || t.hasPrefix("0x70736274ff") {
            return try PSBT.read(text: t)
        }
        switch BoundedFile.read(text, maximumBytes: PSBT.maximumSize) {
        case .bytes(let b): return try PSBT.read(b)
        case .tooLarge(let size): throw PSBTError.tooLarge(size: size, maximum: PSBT.maximumSize)
        default:
            throw PSBTFileError.unreadable(
                path: text, reason: "neither a readable file nor PSBT text (base64 starting cHNidP8, or hex)")
        }
    }

    /// Writes `psbt` to `path`: binary for a `.psbt` name, else base64 and a newline.
    public func writePSBT(_ psbt: PSBT, to path: String) throws {
        let bytes = path.hasSuffix(".psbt") ? psbt.serialized : Array((psbt.base64 + "\n").utf8)
        do { try AtomicFile.write(bytes, to: path, mode: 0o644) } catch {
            throw PSBTFileError.unwritable(path: path, reason: error.description)
        }
    }

    /// The chain `name` names, else the one the PSBT's key paths imply (coin type 1': test), else main.
    public static func bitcoinChain(_ name: String?, for psbt: PSBT?) throws -> BitcoinChain {
        if let name {
            guard let chain = BitcoinChain(named: name) else { throw PSBTFileError.chain(given: name) }
            return chain
        }
        guard let psbt else { return .main }
        let maps = psbt.inputs + psbt.outputs
        let paths =
            maps.flatMap { m in
                m.derivations(type: 0x06).map(\.origin.path) + m.derivations(type: 0x02).map(\.origin.path)
            }
            + maps.flatMap { m in
                m.tapDerivations(type: 0x16).map(\.origin.origin.path)
                    + m.tapDerivations(type: 0x07).map(\.origin.origin.path)
            }
        for p in paths {
            let c = p.components
            if c.count >= 2, [44, 49, 84, 86, 48].contains(c[0].index), c[1].hardened, c[1].index <= 1 {
                return c[1].index == 1 ? .test : .main
            }
        }
        return .main
    }
}

import Foundation
import KCSRuntime
import KCSSyntax
import WalletCore
import WalletCrypto
import WalletMPC
import WalletSession
import WalletStore

// The `mpc` namespace: two-party keys with a co-signer (docs/two-party.md) — pairing, the
// co-signer's loop, HD children of a joint master, status and peers. `key.generate --two-party`
// makes the key; `sign` with it goes through `TwoPartySigner`.

extension Builtins {
    static let mpc: [Builtin] = [
        Builtin(
            "mpc.pair", traits: [.opensVault], params: [ParamSpec("address", .string)],
            options: [
                OptionSpec("name", .string, "what to call the co-signer here (default cosigner)"),
                OptionSpec("yes", nil, "do not ask whether the fingerprints match (scripts; compare them anyway)"),
            ],
            summary:
                "Pairs with a co-signer (kcs cosigner serve) at HOST:PORT or unix:PATH: both identity fingerprints shown to compare, then pinned.",
            example: "mpc.pair \"127.0.0.1:7000\" --name laptop"
        ) { args in
            let session = try args.session()
            let peer = try session.pairCosigner(
                endpoint: args.string("address") ?? "", name: args.string("name") ?? "cosigner",
                yes: args.flag("yes"))
            return peerValue(peer)
        },

        Builtin(
            "mpc.peers", summary: "The paired co-signers (role p1: this home is the console) and consoles (p2).",
            example: "mpc.peers"
        ) { args in
            .list(try args.session().twoPartyPeers().map(peerValue))
        },

        Builtin(
            "mpc.sessions",
            options: [OptionSpec("limit", .int, "at most this many, newest first (default 20)", in: 1...100_000)],
            summary:
                "The audit trail of two-party sessions: pairing, key generation and signing, on either side, and how each ended.",
            example: "mpc.sessions --limit 5"
        ) { args in
            let limit = args.int("limit") ?? 20
            return .list(
                try args.session().twoPartySessions(limit: limit).map { s in
                    var f: [(String, Value)] = [
                        ("time", .string(isoDate(s.finishedAt ?? s.startedAt))), ("kind", .string(s.kind.rawValue)),
                        ("role", .string(s.role.rawValue)),
                        ("peer", .string(s.peer)), ("state", .string(s.state.rawValue)),
                    ]
                    if let k = s.keyName { f.append(("key", .string(k))) }
                    if let d = s.digest { f.append(("digest", .bytes(d))) }
                    if let c = s.check { f.append(("check", .string(c))) }
                    return .map(ValueMap(f))
                })
        },

        Builtin(
            "mpc.explain", params: [ParamSpec("mode", .string, default: .null, choices: ["on", "off"])],
            summary:
                "Explains two-party keys: DKG, shares and key types; `on` explains each message of key generation and signing as it runs, `off` stops.",
            example: "mpc.explain on"
        ) { args in
            let session = try args.session()
            switch args.string("mode") {
            case "on"?: session.explainTwoParty = true
            case "off"?: session.explainTwoParty = false
            default: break  // none given; the table declares the choices
            }
            return .string(TwoPartyTeaching.overview)
        },

        Builtin(
            "mpc.fingerprint", traits: [.opensVault],
            summary: "This home's two-party identity fingerprint (made on first use), to compare when pairing.",
            example: "mpc.fingerprint"
        ) { args in
            .string(try args.session().twoPartyFingerprint())
        },

        Builtin(
            "mpc.derive", traits: [.opensVault], params: [ParamSpec("key", .string), ParamSpec("path", pathType)],
            options: [OptionSpec("name", .string, "the child's name (default KEY-0-7 for m/0/7)")],
            summary:
                "An HD-CHILD of a two-party HD-MASTER at a non-hardened path (BIP-32 on the joint xpub; m/0/i receive, m/1/i change).",
            example: "mpc.derive vault m/0/7"
        ) { args in
            let path = try pathArgument(args.value("path"))
            return keyValue(
                try args.session().deriveTwoPartyChild(
                    of: args.string("key") ?? "", path: path, name: args.string("name")))
        },

        Builtin(
            "mpc.status", params: [ParamSpec("key", .string)],
            summary:
                "A two-party key: both roles, the co-signer and its identity, the Paillier modulus size, locked or not.",
            example: "mpc.status vault"
        ) { args in
            let session = try args.session()
            let name = args.string("key") ?? ""
            let (record, parameters, peer) = try session.store().read { tx in
                let record = try tx.key(named: name)
                guard let parameters = try tx.twoPartyParameters(keyID: record.parentID ?? record.id) else {
                    throw TwoPartyError.notTwoParty(name: name)
                }
                return (record, parameters, try tx.twoPartyPeer(named: parameters.peer))
            }
            var f: [(String, Value)] = [("name", .string(record.name)), ("kind", .string(parameters.kind))]
            f += twoPartyFields(parameters, peer)
            f += [("jointKey", .bytes(parameters.q)), ("paillierBits", .int(2048))]
            if let address = record.address { f.append(("address", .string(address))) }
            if let path = record.path { f.append(("path", .string(path.description))) }
            return .map(ValueMap(f))
        },

        Builtin(
            "mpc.unlock", traits: [.opensVault], params: [ParamSpec("key", .string)],
            options: [OptionSpec("yes", nil, "unlock without asking (a batch run must give it)")],
            summary:
                "Unlocks a two-party key this home locked (a failed signature check, or a share made in an interrupted session the other side turned out to have).",
            example: "mpc.unlock vault --yes"
        ) { args in
            let record = try args.session().unlockTwoPartyKey(named: args.string("key") ?? "", yes: args.flag("yes"))
            return .map(ValueMap([("name", .string(record.name)), ("status", .string("active"))]))
        },

        Builtin(
            "mpc.export", traits: [.opensVault],
            params: [
                ParamSpec("key", .string), ParamSpec("file", .string),
                ParamSpec("passphrase", .oneOf([.string, .secret(nil)]), default: .null, secret: true),
            ],
            options: [
                OptionSpec("force", nil, "replace FILE when it exists"),
                OptionSpec("light", nil, "scrypt n=16384 instead of 262144 (tests)"),
            ],
            summary:
                "Backs up this home's share of a two-party key (and the pinned peer) to a 0600 file, sealed under its own passphrase.",
            example: "mpc.export vault vault-share.json (env \"BACKUP_PASSPHRASE\" --secret passphrase)"
        ) { args in
            let session = try args.session()
            let path = expandedPath(args.string("file") ?? "")
            let passphrase = try backupPassphrase(args, session: session, twice: true)
            let record = try session.exportTwoPartyShare(
                keyName: args.string("key") ?? "", to: path, passphrase: passphrase,
                force: args.flag("force"), light: args.flag("light"))
            return .map(
                ValueMap([
                    ("name", .string(record.name)), ("file", .string(path)), ("address", .string(record.address ?? "")),
                ]))
        },

        Builtin(
            "mpc.import", traits: [.opensVault],
            params: [
                ParamSpec("file", .string),
                ParamSpec("passphrase", .oneOf([.string, .secret(nil)]), default: .null, secret: true),
            ],
            options: [OptionSpec("name", .string, "the key's name here (default: its name in the file)")],
            summary: "Restores a share mpc.export wrote (pinning its peer when this home has none of that name).",
            example: "mpc.import vault-share.json (env \"BACKUP_PASSPHRASE\" --secret passphrase)"
        ) { args in
            let session = try args.session()
            let passphrase = try backupPassphrase(args, session: session, twice: false)
            return keyValue(
                try session.importTwoPartyShare(
                    from: expandedPath(args.string("file") ?? ""), passphrase: passphrase,
                    name: args.string("name")))
        },

        Builtin(
            "mpc.serve", traits: [.opensVault],
            options: [
                OptionSpec("listen", .string, "HOST:PORT (127.0.0.1 by default) or unix:PATH"),
                OptionSpec(
                    "approve", .string, "ask (show each request and ask) or all (sign unattended: tests, scripts)",
                    choices: ["ask", "all"]),
                OptionSpec(
                    "sessions", .int, "stop after this many connections (default: until Ctrl-C)", in: 1...1_000_000),
                OptionSpec(
                    "pair-any", nil,
                    "pair any console without asking (else every pairing is confirmed here, whatever --approve says)"),
                OptionSpec(
                    "allow-raw-digests", nil, "co-sign bare 32-byte digests (else refused: they cannot be shown)"),
            ],
            summary:
                "Runs this home as a co-signer: pairs consoles, makes joint keys with them and co-signs what it is shown.",
            example: "mpc.serve --listen \"127.0.0.1:7000\" --approve ask"
        ) { args in
            let session = try args.session()
            let approval = TwoPartyApproval(rawValue: args.string("approve") ?? "ask") ?? .ask
            let sessions = args.int("sessions")
            try session.serveCosigner(
                listen: args.string("listen") ?? "127.0.0.1:7000", approval: approval, sessions: sessions,
                pairAny: args.flag("pair-any"), allowRawDigests: args.flag("allow-raw-digests"))
            return .null
        },
    ]

    /// The backup passphrase: the argument, or asked without echo at a terminal (twice for a new one).
    static func backupPassphrase(_ args: CallArguments, session: Session, twice: Bool) throws -> Secret {
        switch args.value("passphrase") {
        case .string(let text)?: return Secret(utf8: text)
        case .secret(let s)?: return try secretBytes(s)
        default: break
        }
        guard let host = session.prompts, host.isInteractive else {
            throw SecretNotSupplied(parameter: "passphrase", position: twice ? 3 : 2)
        }
        guard let first = try host.askSecret(prompt: "backup passphrase: ") else { throw SessionError.cancelled }
        if twice {
            guard let again = try host.askSecret(prompt: "the same passphrase again: ") else {
                throw SessionError.cancelled
            }
            guard first == again else { throw KeystoreCommandError.passwordsDiffer }
        }
        return first
    }

    static func fingerprint(_ identityKey: [UInt8]) -> String {
        let hex = Hex.encode(Array(Hash.sha256(identityKey).prefix(16)))
        return stride(from: 0, to: 32, by: 4).map { i in
            String(hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 4)])
        }.joined(separator: " ")
    }

    /// Both roles, the peer and its identity, and whether the key is locked (mpc.status, key.show).
    static func twoPartyFields(_ parameters: TwoPartyKeyParameters, _ peer: TwoPartyPeer?) -> [(String, Value)] {
        let console = "P1 (console: x1 and the Paillier key)", cosigner = "P2 (co-signer: x2)"
        var f: [(String, Value)] = [
            ("role", .string(parameters.role == .console ? console : cosigner)), ("peer", .string(parameters.peer)),
            ("peerRole", .string(parameters.role == .console ? cosigner : console)),
        ]
        if let peer { f.append(("peerFingerprint", .string(fingerprint(peer.identityKey)))) }
        f.append(("status", .string(parameters.status.rawValue)))
        if let reason = parameters.lockedReason { f.append(("lockedReason", .string(reason))) }
        return f
    }

    static func peerValue(_ p: TwoPartyPeer) -> Value {
        var f: [(String, Value)] = [("name", .string(p.name)), ("role", .string(p.role.rawValue))]
        if let e = p.endpoint { f.append(("address", .string(e))) }
        f += [("fingerprint", .string(fingerprint(p.identityKey))), ("paired", .string(isoDate(p.pairedAt)))]
        if let m = p.misbehavedAt { f.append(("misbehaved", .string(isoDate(m) + " " + (p.misbehaviour ?? "")))) }
        return .map(ValueMap(f))
    }
}

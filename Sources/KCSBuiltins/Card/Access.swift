import CardProtocol
import Foundation
import KCSRuntime
import KCSSyntax
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `card` namespace, getting in (docs/card-console.md): status, INIT, pairing that is stored
// and never lost, the secure channel, the PIN with its safety rules, and the factory reset. The
// walk and the bookkeeping are the session's (`WalletSession/Card/CardLogin.swift`,
// `CardAdministration.swift`); secrets come in as secret values or are asked without echo.

extension Builtins {
    static let cardAccess: [Builtin] = [
        Builtin(
            "card.status",
            summary: "PIN and PUK tries left, key loaded, current path, PIN-less path (needs the secure channel).",
            example: "card.status"
        ) { args in
            let card = try args.session().requireChannel()
            let status = try card.commands.getStatus()
            let path = try card.commands.getKeyPath()
            return .map(
                ValueMap([
                    ("pinTriesLeft", .int(status.pinRetries)), ("pukTriesLeft", .int(status.pukRetries)),
                    ("keyLoaded", .bool(status.keyInitialized)), ("path", .string(path.description)),
                    ("pinlessPath", card.known.pinlessPath.map { .string($0.description) } ?? .null),
                    ("pinVerified", .bool(card.known.pinVerified)),
                ]))
        },

        Builtin(
            "card.init", traits: [.changesCard],
            options: [
                OptionSpec("pin", credentialType, "the PIN, 6 digits", secret: true),
                OptionSpec("puk", credentialType, "the PUK, 12 digits", secret: true),
                OptionSpec("pairing", credentialType, "the pairing password", secret: true),
                OptionSpec("generate", nil, "generate the values not given and show them once"),
                OptionSpec(
                    "duress", credentialType, "a duress PIN (default on applet 3.1+: the PUK's first 6 digits)",
                    secret: true),
                OptionSpec("pin-tries", .int, "PIN tries, 2 to 10 (default 3)", in: 2...10),
                OptionSpec("puk-tries", .int, "PUK tries, 3 to 12 (default 5)", in: 3...12),
                OptionSpec(
                    "force", nil, "initialize even when the duress PIN would equal the PIN (every login a duress login)"
                ),
            ],
            summary:
                "Initializes a blank card with a PIN, a PUK and a pairing password (asked twice, given, or generated).",
            example: "card.init --generate"
        ) { args in
            let session = try args.session()
            let warnings = try session.initializeCard { try initRequest(args, session: session) }
            let card = try session.requireCard()
            var fields: [(String, Value)] = [
                ("initialized", .bool(card.info.isInitialized)), ("shortUID", .string(card.shortUID)),
            ]
            if let free = card.info.freePairingSlots { fields.append(("freePairingSlots", .int(free))) }
            if card.isVersion4 {
                fields.append(
                    (
                        "duressPIN",
                        .string(
                            "set: it opens a second wallet with other keys; give it instead of the PIN if someone forces you to unlock the card"
                        )
                    ))
            }
            return withWarnings(fields, warnings, session: session)
        },

        Builtin(
            "card.pair", traits: [.opensVault, .changesCard],
            options: [
                OptionSpec("password", credentialType, "the pairing password", secret: true),
                OptionSpec("default", nil, "use the ecosystem default password KeycardDefaultPairing"),
                OptionSpec("force", nil, "pair even though kcs holds a pairing for this card (it is replaced)"),
            ],
            summary:
                "Pairs with the card and stores the pairing (sealed, by instance UID) so later sessions reuse the slot.",
            example: "card.pair --default"
        ) { args in
            let session = try args.session()
            let paired = try session.pairCard(force: args.flag("force")) { try pairingSecret(args, session: session) }
            var fields: [(String, Value)] = [("slot", .int(Int(paired.pairing.index))), ("stored", .bool(true))]
            if let free = paired.freePairingSlots { fields.append(("freePairingSlots", .int(free))) }
            return withWarnings(fields, paired.warnings, session: session)
        },

        Builtin(
            "card.open", traits: [.opensVault],
            summary: "Opens the secure channel with the pairing kcs stored for this card.",
            example: "card.open"
        ) { args in
            let session = try args.session()
            let opened = try session.openChannel()
            let channel: (String, Value) =
                opened.slot.map { ("slot", .int(Int($0))) }
                ?? ("secureChannel", .string(secureChannelV2Text))
            return withWarnings([channel, ("open", .bool(true))], opened.warnings, session: session)
        },

        Builtin(
            "card.verify", params: [ParamSpec("pin", credentialType, secret: true)],
            options: [OptionSpec("force", nil, "send the PIN even when only one try is left")],
            summary: "Verifies the PIN over the open secure channel (refused with one try left unless --force).",
            example: "card.verify (env \"KC_PIN\" --secret pin)"
        ) { args in
            let session = try args.session()
            guard let warning = try session.verifyPIN(try requiredSecret(args, "pin"), force: args.flag("force")) else {
                return .null
            }
            return withWarnings([], [warning], session: session)
        },

        Builtin(
            "card.login", traits: [.opensVault, .mayChangeCard],
            params: [ParamSpec("pin", credentialType, secret: true)],
            options: [
                OptionSpec(
                    "password", credentialType, "the pairing password, when the card must be paired", secret: true),
                OptionSpec("default", nil, "pair with the default password KeycardDefaultPairing"),
                OptionSpec("ephemeral", nil, "pair for this session only; the slot is freed on every way out"),
                OptionSpec("yes", nil, "pair again without asking when the card refuses the stored pairing"),
                OptionSpec("force", nil, "send the PIN even when only one try is left"),
            ],
            summary:
                "Select, pair (or reuse the stored pairing), open the secure channel and verify the PIN, in one step.",
            example: "card.login (env \"KC_PIN\" --secret pin) --default"
        ) { args in
            let session = try args.session()
            let card = try session.requireCard()
            let pin = try requiredSecret(args, "pin")
            var request = CardLoginRequest { try pairingSecret(args, session: session) }
            request.ephemeral = args.flag("ephemeral")
            request.force = args.flag("force")
            request.repairWithoutAsking = args.flag("yes")
            request.pairingOptionGiven = args.value("password") != nil || args.flag("default") || args.flag("ephemeral")
            let login = try session.login(pin: pin, request)
            var fields: [(String, Value)] = [("card", .string(card.name)), ("shortUID", .string(card.shortUID))]
            if let pairing = login.pairing {
                fields += [
                    ("slot", .int(Int(pairing.index))), ("paired", .bool(login.paired)),
                    ("ephemeral", .bool(card.known.ephemeralPairing != nil)),
                ]
            } else {
                fields.append(("secureChannel", .string(secureChannelV2Text)))
            }
            if let free = card.info.freePairingSlots { fields.append(("freePairingSlots", .int(free))) }
            return withWarnings(fields, login.warnings, session: session)
        },

        Builtin(
            "card.logout",
            summary: "Ends the card session (an ephemeral pairing is unpaired first); the PIN must be verified again.",
            example: "card.logout"
        ) { args in
            let session = try args.session()
            let (freed, warnings) = try session.logOutCard()
            return withWarnings(
                [("loggedOut", .bool(true)), ("unpaired", freed.map { .int(Int($0)) } ?? .null)], warnings,
                session: session)
        },

        Builtin(
            "card.pairings",
            options: [OptionSpec("all", nil, "every pairing kcs holds, for any card (no card needed)")],
            summary: "What kcs holds for this card (stored and session pairing) and the card's free pairing slots.",
            example: "card.pairings"
        ) { args in
            let session = try args.session()
            let store = try session.store()
            if args.flag("all") {
                return .list(
                    try store.pairings().map { p in
                        .map(
                            ValueMap([
                                ("instanceUID", .bytes(p.instanceUID)),
                                ("shortUID", .string(String(p.instanceUIDHex.prefix(8)))),
                                ("slot", .int(Int(p.slot))), ("created", .string(isoDate(p.createdAt))),
                            ]))
                    })
            }
            let p = try session.cardPairings()
            let int = { (n: Int?) in n.map { Value.int($0) } ?? .null }
            let fields: [(String, Value)] = [
                ("card", .string(p.card)), ("shortUID", .string(p.shortUID)), ("pairingSlots", int(p.pairingSlots)),
                ("freePairingSlots", int(p.freePairingSlots)), ("stored", int(p.storedSlot)),
                ("session", int(p.sessionSlot)),
                ("ephemeral", .bool(p.ephemeral)), ("unexplained", int(p.unexplained)),
            ]
            return withWarnings(fields, p.warning.map { [$0] } ?? [], session: session)
        },

        Builtin(
            "card.unpair", traits: [.changesCard], params: [ParamSpec("slot", .int, default: .null)],
            options: [
                OptionSpec("others", nil, "free every slot but this session's"),
                OptionSpec("all", nil, "free every slot, this session's too (the session ends)"),
                OptionSpec("yes", nil, "confirm --others or --all without asking (batch runs)"),
            ],
            summary: "Frees pairing slots: this session's (no argument), SLOT, every other (--others) or all (--all).",
            example: "card.unpair --others --yes"
        ) { args in
            let session = try args.session()
            let card = try session.requireLoggedIn()
            try card.requirePairings()
            let slotArgument = try args.integer("slot").map { UInt8(try smallInt($0, "the slot", in: 0...255)) }
            let given = [slotArgument != nil, args.flag("others"), args.flag("all")].filter { $0 }.count
            guard given <= 1 else { throw CardCommandError.unpairChoice }
            guard let ours = card.known.pairing?.index else { throw CardCommandError.notOpen }
            if let slot = slotArgument, slot != ours, let total = card.pairingSlotCount, Int(slot) >= total {
                throw BuiltinError.outOfRange(name: "the slot", expected: "0 to \(total - 1)", got: String(slot))
            }
            let choice: UnpairChoice =
                args.flag("others") ? .others : args.flag("all") ? .all : slotArgument.map { .slot($0) } ?? .own
            let r = try session.unpair(choice, yes: args.flag("yes"))
            var fields: [(String, Value)] = [
                ("unpaired", .list(r.unpaired.map { .int(Int($0)) })), ("loggedOut", .bool(r.loggedOut)),
            ]
            if r.reportsFreeSlots { fields.append(("freePairingSlots", r.freePairingSlots.map { .int($0) } ?? .null)) }
            return .map(ValueMap(fields))
        },

        Builtin(
            "card.unblock", traits: [.changesCard],
            params: [
                ParamSpec("puk", credentialType, secret: true),
                ParamSpec("pin", credentialType, default: .null, secret: true),
            ],
            options: [OptionSpec("force", nil, "send the PUK even when only one try is left")],
            summary: "Unblocks a blocked PIN with the PUK and sets a new PIN (asked twice at a terminal).",
            example: "card.unblock (env \"KC_PUK\" --secret puk) (env \"KC_NEW_PIN\" --secret pin)"
        ) { args in
            let session = try args.session()
            let card = try session.channelOpeningIfNeeded()
            let puk = try requiredSecret(args, "puk")
            try KeycardCommands.checkDigits(puk, count: 12, what: "PUK", command: .unblockPIN)
            // One GET STATUS answers both: is the PIN blocked, and may the PUK be sent.
            let status = try card.commands.getStatus()
            guard status.pinRetries == 0 else { throw CardCommandError.pinNotBlocked(triesLeft: status.pinRetries) }
            try Session.checkTries(.puk, in: status, force: args.flag("force"))
            let pin = try newValue(
                args.value("pin"), what: "PIN", option: "the new PIN as argument 2", session: session)
            let warning = try session.unblockPIN(card, puk: puk, newPIN: pin)
            return warning.map { .map(ValueMap([("warning", .string($0))])) } ?? .null
        },

        Builtin(
            "card.change", traits: [.changesCard],
            params: [
                ParamSpec("what", .string, choices: ["pin", "puk", "pairing"]),
                ParamSpec("value", credentialType, default: .null, secret: true),
            ],
            summary: "Changes the PIN, the PUK or the pairing password (asked twice at a terminal); needs card.login.",
            example: "card.change pin (env \"KC_NEW_PIN\" --secret pin)"
        ) { args in
            let session = try args.session()
            // The table declares the choices: pin, puk, pairing.
            let credential = ChangeableCredential(rawValue: args.string("what") ?? "") ?? .pairing
            let note = try session.changeCredential(credential) { what in
                let secret = try newValue(
                    args.value("value"), what: what, option: "the new \(what) as argument 2", session: session)
                return credential == .pairing ? try newPairingPassword(secret) : secret
            }
            return .map(
                ValueMap([("changed", .string(credential.rawValue))] + (note.map { [("note", .string($0))] } ?? [])))
        },

        Builtin(
            "card.reset", traits: [.changesCard],
            options: [
                OptionSpec(
                    "confirm", .oneOf([.string, .int, .bytes]),
                    "the card's short instance UID (batch runs; a terminal asks for it)")
            ],
            summary:
                "Factory-resets the card (keys, PIN, PUK, every pairing) after its short instance UID is typed; forgets its stored pairing.",
            example: "card.reset --confirm 1a2b3c4d"
        ) { args in
            let typed: String? =
                switch args.value("confirm") {
                case .string(let text)?: text
                // An all-digit UID written bare is an integer (leading zeros lost), one written 0x… bytes.
                case .int(let n)?: n >= 0 && n < 100_000_000 ? String(format: "%08d", n) : String(n)
                case .bigInt(let n)?: String(describing: n)
                case .bytes(let b)?: Hex.encode(b)
                default: nil
                }
            let reset = try args.session().factoryReset(typed: typed)
            return .map(
                ValueMap([
                    ("reset", .bool(true)), ("initialized", .bool(reset.initialized)),
                    ("forgotPairing", .bool(reset.forgotPairing)),
                ]))
        },
    ]
}

extension Builtins {
    /// How `card.login` and `card.open` name a 4.0 card's channel.
    static let secureChannelV2Text = "V2 (a 4.0 card: no pairing)"

    /// What a PIN, PUK or password argument accepts: text or a secret value.
    static let credentialType: ValueType = .oneOf([.string, .secret(nil)])

    // MARK: - Helpers

    /// A PIN, PUK or password argument's bytes (text or a secret), nil when absent.
    static func secretArgument(_ value: Value?) throws -> Secret? {
        switch value {
        case .string(let text)?: Secret(utf8: text)
        case .secret(let s)?: try secretBytes(s)
        default: nil
        }
    }

    /// A secret parameter the interpreter has already asked for (or reported missing).
    static func requiredSecret(_ args: CallArguments, _ name: String) throws -> Secret {
        guard let secret = try secretArgument(args.value(name)) else {
            throw SecretNotSupplied(parameter: name, position: 1)
        }
        return secret
    }

    /// A new value: `given`, else asked twice without echo at a terminal, else the batch
    /// error that says how to give it.
    static func newValue(_ given: Value?, what: String, option: String, session: Session) throws -> Secret {
        if let secret = try secretArgument(given) { return secret }
        guard let host = session.prompts, host.isInteractive else {
            throw CardCommandError.valueNeeded(what: what, option: option)
        }
        guard let first = try host.askSecret(prompt: "new \(what): ") else {
            throw SessionError.cancelled
        }
        guard let again = try host.askSecret(prompt: "the same \(what) again: ") else {
            throw SessionError.cancelled
        }
        guard first == again else { throw CardCommandError.valuesDiffer(what: what) }
        return first
    }

    /// `card.init`'s values: given, generated (`--generate`, shown once after INIT) or asked
    /// twice; a generated PUK never starts with the PIN (the default duress PIN).
    static func initRequest(_ args: CallArguments, session: Session) throws -> CardInitRequest {
        let generate = args.flag("generate")
        var shown: [String] = []
        let pin = try initValue(
            args, "pin", what: "PIN", digits: 6, generate: generate, shown: &shown,
            session: session)
        if try session.requireCard().isVersion4 {
            return try initRequestV2(args, pin: pin, generate: generate, shown: shown, session: session)
        }
        var puk = try initValue(
            args, "puk", what: "PUK", digits: 12, generate: generate, shown: &shown,
            session: session)
        while args.value("puk") == nil, generate, Session.startsWith(puk, pin) {
            shown.removeLast()
            puk = try initValue(
                args, "puk", what: "PUK", digits: 12, generate: true, shown: &shown,
                session: session)
        }
        let password = try initValue(
            args, "pairing", what: "pairing password", digits: nil, generate: generate,
            shown: &shown, session: session)
        let duress = try secretArgument(args.value("duress"))
        // The table declares the ranges (2 to 10, 3 to 12); `bind` has checked them.
        let pinTries = args.int("pin-tries").map { UInt8($0) }
        let pukTries = args.int("puk-tries").map { UInt8($0) }
        let parameters = try InitParameters(
            pin: pin, puk: puk, pairingSecret: try PairingSecret(password: try newPairingPassword(password)),
            pinRetries: pinTries,
            pukRetries: pukTries, duressPIN: duress)
        return CardInitRequest(parameters: parameters, shown: shown, force: args.flag("force"))
    }

    /// A 4.0 card's INIT values: PIN, PUK and always a duress PIN different from the PIN (the
    /// applet would otherwise make the PIN the duress PIN: every login a duress login). No
    /// pairing password: a 4.0 card has no pairing.
    static func initRequestV2(
        _ args: CallArguments, pin: Secret, generate: Bool, shown: [String],
        session: Session
    ) throws -> CardInitRequest {
        var shown = shown
        guard args.value("pairing") == nil else { throw CardCommandError.noPairingOnVersion4 }
        let puk = try initValue(
            args, "puk", what: "PUK", digits: 12, generate: generate, shown: &shown, session: session)
        var duress = try initValue(
            args, "duress", what: "duress PIN", digits: 6, generate: generate, shown: &shown,
            session: session)
        while args.value("duress") == nil, generate, duress == pin {
            shown.removeLast()
            duress = try initValue(
                args, "duress", what: "duress PIN", digits: 6, generate: true, shown: &shown, session: session)
        }
        // A 4.0 card takes at most 6 PIN tries, fewer than the table's range for every card.
        let pinTries = try args.integer("pin-tries").map { UInt8(try smallInt($0, "--pin-tries", in: 2...6)) } ?? 3
        let pukTries = args.int("puk-tries").map { UInt8($0) } ?? 5
        let parameters = try InitParametersV2(
            pin: pin, puk: puk, duressPIN: duress, pinRetries: pinTries, pukRetries: pukTries)
        return CardInitRequest(parametersV2: parameters, shown: shown)
    }

    /// One INIT value: the option, a generated one (`digits` digits, or a password when nil;
    /// added to `shown`), or asked twice.
    static func initValue(
        _ args: CallArguments, _ option: String, what: String, digits: Int?, generate: Bool,
        shown: inout [String], session: Session
    ) throws -> Secret {
        if let given = try secretArgument(args.value(option)) { return given }
        guard generate else {
            return try newValue(nil, what: what, option: "--\(option) or --generate", session: session)
        }
        let text = digits.map { randomDigits($0, session.random) } ?? randomPassword(session.random)
        shown.append("\(what): \(text)")
        return Secret(utf8: text)
    }

    /// `count` uniformly random decimal digits.
    static func randomDigits(_ count: Int, _ random: any RandomSource) -> String {
        var out = ""
        while out.count < count {
            for b in random.bytes(count) where b < 250 && out.count < count { out.append(Character(String(b % 10))) }
        }
        return out
    }

    /// A new pairing password, refused when empty: anyone could pair with the card and try PINs.
    static func newPairingPassword(_ password: Secret) throws(CardCommandError) -> Secret {
        guard password.count > 0 else { throw .emptyPairingPassword }
        return password
    }

    /// A pairing password of 16 characters from 32 unambiguous ones, in groups of four.
    static func randomPassword(_ random: any RandomSource) -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789A")
        let chars = random.bytes(16).map { alphabet[Int($0 & 31)] }
        return stride(from: 0, to: 16, by: 4).map { String(chars[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The pairing secret of `card.pair`/`card.login`: `--password`, `--default`, or asked once
    /// at a terminal.
    static func pairingSecret(_ args: CallArguments, session: Session) throws -> PairingSecret {
        if let password = try secretArgument(args.value("password")) { return try PairingSecret(password: password) }
        if args.flag("default") { return PairingSecret(password: PairingSecret.defaultPassword) }
        guard let host = session.prompts, host.isInteractive else {
            throw CardCommandError.valueNeeded(
                what: "pairing password",
                option: "--password (or --default for KeycardDefaultPairing)")
        }
        guard let password = try host.askSecret(prompt: "pairing password: ") else {
            throw SessionError.cancelled
        }
        return try PairingSecret(password: password)
    }

    /// A result record with a `warning` field when there are warnings (also shown at a terminal).
    static func withWarnings(_ fields: [(String, Value)], _ warnings: [String], session: Session) -> Value {
        session.warn(warnings)
        return .map(
            ValueMap(warnings.isEmpty ? fields : fields + [("warning", .string(warnings.joined(separator: "; ")))]))
    }
}

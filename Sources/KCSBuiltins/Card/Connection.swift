import CardPCSC
import CardProtocol
import CardSimulator
import Foundation
import KCSRuntime
import WalletCore
import WalletSession

// The `card` namespace, connecting (docs/card-console.md): readers, simulated cards, the
// connection and SELECT's answer.

extension Builtins {
    static let cardConnection: [Builtin] = [
        Builtin(
            "card.readers",
            summary:
                "The PC/SC readers pcscd knows, and the simulated cards in the kcs home (a warning when PC/SC is unavailable).",
            example: "card.readers"
        ) { args in
            let session = try args.session()
            var rows: [Value] = []
            do {
                for r in try PCSCContext().readers() {
                    rows.append(.map(ValueMap([("kind", .string("pcsc")), ("name", .string(r))])))
                }
            } catch {
                // The simulated cards are still listed; what is missing is said, not hidden.
                session.prompts?.warn("card.readers: PC/SC is unavailable, so no reader is listed: \(error)")
            }
            for n in SimulatedCard.cardNames(in: try session.cardsDirectory()) {
                rows.append(.map(ValueMap([("kind", .string("sim")), ("name", .string(n))])))
            }
            return .list(rows)
        },

        Builtin(
            "card.connect",
            params: [ParamSpec("medium", .string, default: .null), ParamSpec("name", .string, default: .null)],
            options: [
                OptionSpec("reader", .string, "a PC/SC reader whose name contains this text (also KCS_READER)"),
                OptionSpec("timeout", .int, "seconds to wait for a card in the reader (default 10)", in: 0...3600),
                OptionSpec(
                    "sim", .string,
                    "the simulated card to use when the medium is sim (a script that runs on either: KCS_CARD=pcsc takes the reader)"
                ),
                OptionSpec(
                    "profile", .string,
                    "the applet of a simulated card made now: \(AppletProfile.namesForHelp) (default 3.1.0)"),
            ],
            summary:
                "Connects to a simulated card (sim [NAME]; NAME default) or a reader (pcsc [READER]); without either, $KCS_CARD or sim.",
            example: "card.connect pcsc --reader ACS"
        ) { args in
            let session = try args.session()
            // Without a medium: `KCS_CARD` (sim or pcsc) chooses, so one script runs on either.
            let medium =
                args.string("medium") ?? session.environment["KCS_CARD"].flatMap { $0.isEmpty ? nil : $0 } ?? "sim"
            let choice: CardMediumChoice
            switch medium {
            case "sim":
                let name = args.string("name") ?? args.string("sim") ?? "default"
                guard SimulatedCard.isValidName(name) else {
                    throw BuiltinError.outOfRange(
                        name: "the card name", expected: "letters, digits, . _ and -", got: name)
                }
                choice = .simulator(name: name, profile: try simulatorProfile(args.string("profile")))
            case "pcsc":
                let timeout = args.int("timeout").map(Double.init)
                choice = .reader(
                    query: args.string("name") ?? args.string("reader") ?? session.environment["KCS_READER"],
                    timeout: timeout ?? session.cardWaitTimeout)
            default:
                throw BuiltinError.badChoice(option: "medium", expected: ["sim", "pcsc"], got: medium)
            }
            let warning = try session.connectCard(choice)
            return cardInfoValue(try session.requireCard(), extra: warning.map { [("warning", .string($0))] } ?? [])
        },

        Builtin(
            "card.disconnect", summary: "Closes the secure channel and lets go of the card.",
            example: "card.disconnect"
        ) { args in
            let session = try args.session()
            session.warn(session.releaseEphemeralPairing())
            session.card?.disconnect()
            session.card = nil
            return .null
        },

        Builtin(
            "card.trust", params: [ParamSpec("identity", .oneOf([.string, .domain("card identity")]), default: .null)],
            options: [
                OptionSpec(
                    "trust-on-first-use", nil, "trust the connected card with nothing compared (said in a warning)")
            ],
            summary:
                "Keycard 4.0: trusts the connected card's identity key (type it as card.info shows it) when its CA is not a Keycard CA; no IDENTITY lists the trusted keys.",
            example: "card.trust"
        ) { args in
            let session = try args.session()
            let firstUse = args.flag("trust-on-first-use")
            let typed = args.string("identity")
            if typed == nil, !firstUse {
                // What the card says about itself is not a comparison (docs/card.md).
                if case .domain? = args.value("identity") { throw CardCommandError.trustNotCompared }
                return .list(
                    try session.trustedCardIdentities().map {
                        .map(ValueMap([("identity", .string($0.identity)), ("ca", .string($0.ca))]))
                    })
            }
            let certificate = try session.trustConnectedCard(confirming: typed)
            return .map(
                ValueMap([
                    ("trusted", .string(certificate.identityPublicKey.description)),
                    ("ca", .string(certificate.caPublicKey.description)),
                ]))
        },

        Builtin(
            "card.info",
            summary:
                "The card's Info screen: initialised, key loaded, free pairing slots, version, instance and key UID, LEE mode (4.0), capabilities.",
            example: "card.info"
        ) { args in
            let card = try args.session().requireCard()
            if !card.hasOpenChannel { try card.select() }
            return cardInfoValue(card)
        },
    ]
}

extension Builtins {
    /// `--profile ID` of `card.connect`: a named applet profile, nil when not given.
    static func simulatorProfile(_ id: String?) throws -> AppletProfile? {
        guard let id else { return nil }
        guard let profile = AppletProfile.named(id) else {
            throw BuiltinError.badChoice(
                option: "profile",
                expected: AppletProfile.all.map(\.id)
                    + AppletProfile.BuildVariant.allCases.map { "4.0+" + $0.rawValue }, got: id)
        }
        return profile
    }

    /// SELECT's answer as a record (`extra` fields last).
    static func cardInfoValue(_ card: CardLink, extra: [(String, Value)] = []) -> Value {
        let i = card.info
        var f: [(String, Value)] = [
            ("card", .string(card.name)), ("initialized", .bool(i.isInitialized)),
            ("instanceUID", .bytes(i.instanceUID)),
        ]
        if i.isInitialized { f.append(("shortUID", .string(card.shortUID))) }
        if let v = i.version { f.append(("version", .string(v.description))) }
        if let certificate = i.certificate {
            // A 4.0 card: Secure Channel V2, its identity from SELECT.
            f.append(("secureChannel", .string("V2")))
            f.append(("identity", .domain(CardIdentityValue(hex: certificate.identityPublicKey.description))))
            let issuer: String =
                switch certificate.issuer {
                case .production: "Keycard production CA"
                case .test: "Keycard test CA"
                case .unknown:
                    card.isSimulated && certificate.caPublicKey == IdentityCertificate.simulatorCA.publicKey
                        ? "kcs simulator CA" : "unknown CA \(certificate.caPublicKey)"
                }
            f.append(("issuer", .string(issuer)))
        }
        if let slots = i.freePairingSlots { f.append(("freePairingSlots", .int(slots))) }
        f.append(("keyLoaded", .bool(!i.keyUID.isEmpty)))
        if !i.keyUID.isEmpty { f.append(("keyUID", .bytes(i.keyUID))) }
        // A 4.0 card's status byte says whether its keys are in LEE mode (docs/keycard-protocol.md §14.1).
        if i.usesSecureChannelV2 { f.append(("leeMode", .bool(i.isLEEMode))) }
        f.append(("capabilities", .string(i.capabilities.description)))
        if let note = card.simulatedNote { f.append(("simulated", .string(note))) }
        return .map(ValueMap(f + extra))
    }
}

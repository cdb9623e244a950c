import CardPCSC
import CardProtocol
import CardSimulator
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto

/// The card a console session is connected to (issue 6): a simulated Keycard kept in the kcs
/// home (`cards/NAME.json`, the default) or a card in a PC/SC reader, the Keycard command set
/// on it, and what the session has learned (SELECT's answer, the pairing in use, whether the
/// PIN is verified). Both kinds answer the same APDUs, so every card command is written once.
public final class CardLink {
    public enum Medium {
        case simulator(SimulatedCard)
        case reader(PCSCTransport)
    }

    public let medium: Medium
    /// `sim:NAME` or the reader's name.
    public let name: String
    public let commands: KeycardCommandSet
    /// SELECT's answer, refreshed by `select()`.
    public private(set) var info: ApplicationInfo
    /// The pairing of the open secure channel, if one is open.
    public var pairing: Pairing?
    /// True when the pairing was made for this session only (`card.login --ephemeral`).
    public var ephemeral = false
    /// True once VERIFY PIN succeeded on the open channel.
    public var pinVerified = false

    init(medium: Medium, name: String, random: any RandomSource) throws(CardError) {
        self.medium = medium
        self.name = name
        let transport: CardTransport = switch medium {
        case .simulator(let card): card
        case .reader(let t): t
        }
        commands = KeycardCommandSet(transport: transport, random: random)
        info = try commands.select()
    }

    /// SELECT again (after INIT, a reset, or to read the free slots); closes any secure channel.
    @discardableResult
    public func select() throws(CardError) -> ApplicationInfo {
        info = try commands.select()
        pairing = nil
        pinVerified = false
        return info
    }

    /// The instance UID as hex (what pairings are stored under).
    public var instanceUID: String { Hex.encode(info.instanceUID) }

    /// The first 8 hex digits of the instance UID: what a person types to confirm a reset.
    public var shortUID: String { String(instanceUID.prefix(8)) }

    /// What the prompt shows: `sim:default 1a2b3c4d`.
    public var promptLabel: String { "\(name) \(shortUID)" }

    /// Drops the connection (a reader's card handle; a simulated card needs nothing).
    public func disconnect() {
        commands.closeSecureChannel()
        if case .reader(let t) = medium { t.disconnect() }
    }

    /// Connects to simulated card `name` in `directory` (made blank when missing).
    static func simulator(named name: String, in directory: String, random: any RandomSource) throws -> CardLink {
        let card = try SimulatedCard.open(named: name, in: directory)
        return try CardLink(medium: .simulator(card), name: "sim:\(name)", random: random)
    }

    /// Connects to the card in the reader whose name contains `query` (the first reader when
    /// nil), waiting up to `timeout` seconds for a card.
    static func reader(matching query: String?, timeout: Double, random: any RandomSource,
                       status: (String) -> Void) throws -> CardLink {
        let context = try PCSCContext()
        let reader = try context.reader(matching: query)
        status("waiting up to \(Int(timeout)) s for a card in \(reader)…")
        try context.waitForCard(in: reader, timeout: timeout)
        let transport = try context.connect(reader: reader)
        return try CardLink(medium: .reader(transport), name: reader, random: random)
    }
}

extension Session {
    /// The connected card, or an error that says how to connect.
    public func requireCard(_ command: String) throws -> CardLink {
        guard let card else { throw CardCommandError.notConnected(command: command) }
        return card
    }

    /// The connected card with an open secure channel and a verified PIN (`card.login`), or an
    /// error that says what to run.
    public func requireLoggedIn(_ command: String) throws -> CardLink {
        let card = try requireCard(command)
        guard card.pairing != nil, card.commands.isSecureChannelOpen else {
            throw CardCommandError.notOpen(command: command)
        }
        guard card.pinVerified else { throw CardCommandError.pinNotVerified(command: command) }
        return card
    }

    /// `$KCS_HOME/cards`, where simulated cards live.
    func cardsDirectory(_ command: String) throws -> String {
        guard let home else { throw SessionError.noHome(command: command) }
        return (home as NSString).appendingPathComponent("cards")
    }
}

extension Builtins {
    static let cardConnection: [Builtin] = [
        Builtin("card.readers",
                summary: "The PC/SC readers pcscd knows, and the simulated cards in the kcs home.",
                example: "card.readers") { args in
            let c = "card.readers"
            let session = try args.session(c)
            var rows: [Value] = []
            if let readers = try? PCSCContext().readers() {
                for r in readers { rows.append(.map(ValueMap([("kind", .string("pcsc")), ("name", .string(r))]))) }
            }
            for n in SimulatedCard.cardNames(in: try session.cardsDirectory(c)) {
                rows.append(.map(ValueMap([("kind", .string("sim")), ("name", .string(n))])))
            }
            return .list(rows)
        },

        Builtin("card.connect",
                params: [ParamSpec("medium", .string, default: .string("sim")), ParamSpec("name", .string, default: .null)],
                options: [
                    OptionSpec("reader", .string, "a PC/SC reader whose name contains this text (also KCS_READER)"),
                    OptionSpec("timeout", .int, "seconds to wait for a card in the reader (default 10)"),
                ],
                summary: "Connects to a simulated card (sim [NAME], the default, NAME default) or a reader (pcsc [READER]) and selects the applet.",
                example: "card.connect pcsc --reader ACS") { args in
            let c = "card.connect"
            let session = try args.session(c)
            let medium = args.string("medium") ?? "sim"
            let link: CardLink
            switch medium {
            case "sim":
                let name = args.string("name") ?? "default"
                guard SimulatedCard.isValidName(name) else {
                    throw BuiltinError.outOfRange(command: c, name: "the card name", expected: "letters, digits, . _ and -", got: name)
                }
                link = try CardLink.simulator(named: name, in: try session.cardsDirectory(c), random: session.random)
            case "pcsc":
                let query = args.string("name") ?? args.string("reader") ?? session.environment["KCS_READER"]
                let timeout = try args.integer("timeout").map { Double(try smallInt($0, c, "--timeout", in: 0...3600)) }
                    ?? session.cardWaitTimeout
                link = try CardLink.reader(matching: query, timeout: timeout, random: session.random) { session.host?.status($0) }
            default:
                throw BuiltinError.badChoice(command: c, option: "medium", expected: ["sim", "pcsc"], got: medium)
            }
            session.card?.disconnect()
            session.card = link
            return cardInfoValue(link)
        },

        Builtin("card.disconnect", summary: "Closes the secure channel and lets go of the card.",
                example: "card.disconnect") { args in
            let session = try args.session("card.disconnect")
            session.card?.disconnect()
            session.card = nil
            return .null
        },

        Builtin("card.info",
                summary: "The card's Info screen: initialised, key loaded, free pairing slots, version, instance and key UID, capabilities.",
                example: "card.info") { args in
            let c = "card.info"
            let card = try args.session(c).requireCard(c)
            if card.pairing == nil { try card.select() }
            return cardInfoValue(card)
        },
    ]

    /// SELECT's answer as a record.
    static func cardInfoValue(_ card: CardLink) -> Value {
        let i = card.info
        var f: [(String, Value)] = [
            ("card", .string(card.name)), ("initialized", .bool(i.isInitialized)),
            ("instanceUID", .bytes(i.instanceUID)),
        ]
        if let v = i.version { f.append(("version", .string(v.description))) }
        if let slots = i.freePairingSlots { f.append(("freePairingSlots", .int(slots))) }
        f.append(("keyLoaded", .bool(!i.keyUID.isEmpty)))
        if !i.keyUID.isEmpty { f.append(("keyUID", .bytes(i.keyUID))) }
        f.append(("capabilities", .string(i.capabilities.description)))
        return .map(ValueMap(f))
    }
}

/// Errors of the card commands that the protocol layer does not already name.
public enum CardCommandError: WalletError, Equatable {
    case notConnected(command: String)
    case notOpen(command: String)
    case pinNotVerified(command: String)

    public var id: String {
        switch self {
        case .notConnected: "card.notConnected"
        case .notOpen: "card.notOpen"
        case .pinNotVerified: "card.pinNotVerified"
        }
    }

    public var description: String {
        switch self {
        case .notConnected(let c):
            "\(c): no card connected; run card.connect (the simulator) or card.connect pcsc [READER]"
        case .notOpen(let c):
            "\(c): no secure channel is open; run card.login (or card.pair and card.open)"
        case .pinNotVerified(let c):
            "\(c): the PIN is not verified; run card.verify or card.login"
        }
    }
}

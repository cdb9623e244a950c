// Path arithmetic for card commands (docs/card.md), tested without a card: reading a path as
// typed, resolving it against the card's current path and the 10-level limit, the shortest
// DERIVE KEY data, the Keycard app's coin screen, and the card's EIP-1581 rule.
import CardProtocol
import Testing
import WalletCore

private func h(_ i: UInt32) -> ChildIndex { ChildIndex(i, hardened: true) }
private func n(_ i: UInt32) -> ChildIndex { ChildIndex(i) }
private let eth0 = [h(44), h(60), h(0), n(0), n(0)]

@Suite("Card path arithmetic")
struct CardPathArithmeticTests {
    // MARK: - Reading a path as typed

    @Test func request_readsTheSDKSyntax() throws {
        #expect(try CardPathRequest("m/44'/60'/0'/0/0") == .init(source: .master, components: eth0))
        #expect(try CardPathRequest("m") == .init(source: .master, components: []))
        #expect(try CardPathRequest("..") == .init(source: .parent, components: []))
        #expect(try CardPathRequest("../5") == .init(source: .parent, components: [n(5)]))
        #expect(try CardPathRequest("./0/1") == .init(source: .current, components: [n(0), n(1)]))
        #expect(
            try CardPathRequest(" 2h/3 ") == .init(source: .current, components: [h(2), n(3)]),
            "blanks around are ignored")
        #expect(try CardPathRequest("") == .init(source: .current, components: []))
    }

    @Test func request_refusesAnInnerM_andBadLevels() {
        #expect(throws: HDError.pathBadSegment(segment: "m", number: 1, reason: "m may only start the path")) {
            try CardPathRequest("../m/1")
        }
        #expect(throws: HDError.self) { try CardPathRequest("m/44'/x") }
        #expect(throws: HDError.self) { try CardPathRequest("m/2147483648") }
    }

    @Test func request_hasNoDepthLimitBeforeResolving() throws {
        let eleven = try CardPathRequest("./" + Array(repeating: "1", count: 11).joined(separator: "/"))
        #expect(eleven.components.count == 11)
    }

    @Test func request_fromADerivationPath_keepsItsKind() throws {
        #expect(CardPathRequest(try DerivationPath("m/44'/60'")) == .init(source: .master, components: [h(44), h(60)]))
        #expect(CardPathRequest(try DerivationPath("0/1")) == .init(source: .current, components: [n(0), n(1)]))
    }

    // MARK: - Resolving and the depth limit

    @Test func resolve_eachSource() throws {
        #expect(try CardPathRequest("m/1").resolve(current: eth0) == [n(1)])
        #expect(try CardPathRequest("./7").resolve(current: eth0) == eth0 + [n(7)])
        #expect(try CardPathRequest("../9").resolve(current: eth0) == [h(44), h(60), h(0), n(0), n(9)])
        #expect(try CardPathRequest(".").resolve(current: eth0) == eth0)
    }

    @Test func resolve_parentOfMaster_isRefused() {
        #expect(throws: CardPathError.parentOfMaster) { try CardPathRequest("../1").resolve(current: []) }
        #expect(CardPathError.parentOfMaster.id == "cardKey.parentOfMaster")
    }

    @Test func resolve_beyondTenLevels_isRefusedWithTheAbsolutePath() throws {
        let eleven = Array(repeating: n(1), count: 11)
        #expect(throws: CardPathError.tooDeep(path: DerivationPath(absolute: true, eleven), depth: 11)) {
            try CardPathRequest(source: .master, components: eleven).resolve(current: [])
        }
        // Relative paths count from the current key: 5 + 6 = 11.
        let six = CardPathRequest(source: .current, components: Array(eleven.prefix(6)))
        #expect(
            throws: CardPathError.tooDeep(
                path: DerivationPath(absolute: true, eth0 + Array(eleven.prefix(6))), depth: 11)
        ) {
            try six.resolve(current: eth0)
        }
        #expect(
            try CardPathRequest(source: .current, components: Array(eleven.prefix(5))).resolve(current: eth0).count
                == 10)
        // The console shows this sentence after the command's name: the refusal's one wording.
        let refusal = CardPathError.tooDeep(path: DerivationPath(absolute: true, eleven), depth: 11)
        #expect(refusal.id == "cardKey.pathTooDeep")
        #expect(
            refusal.description
                == "m/1/1/1/1/1/1/1/1/1/1/1 is 11 levels deep; the card derives at most 10 levels (nothing was sent)")
    }

    // MARK: - Which source keeps DERIVE KEY short

    @Test func shortest_fromMaster_sendsTheWholePath() {
        let p = CardKeyPath.shortest(to: eth0, from: [])
        #expect(p.source == .master && p.components == eth0)
    }

    @Test func shortest_belowTheCurrentKey_sendsTheRestFromCurrent() {
        let p = CardKeyPath.shortest(to: eth0 + [n(7)], from: eth0)
        #expect(p.source == .current && p.components == [n(7)])
        #expect(p.description == "./7")
    }

    @Test func shortest_aSibling_goesThroughTheParent() {
        let p = CardKeyPath.shortest(to: [h(44), h(60), h(0), n(0), n(1)], from: eth0)
        #expect(p.source == .parent && p.components == [n(1)])
        #expect(p.description == "../1")
    }

    @Test func shortest_theCurrentKeyItself_sendsNothing() {
        let p = CardKeyPath.shortest(to: eth0, from: eth0)
        #expect(p.source == .current && p.isEmpty)
    }

    @Test func shortest_elsewhere_goesFromTheMaster() {
        let target = [h(44), h(0), h(0), n(0), n(0)]
        let p = CardKeyPath.shortest(to: target, from: eth0)
        #expect(p.source == .master && p.components == target)
        // A tie (one level below the master's child) goes to the master, not to the parent.
        #expect(CardKeyPath.shortest(to: [h(43)], from: [h(44)]).source == .master)
    }

    // MARK: - The coin screen

    @Test func coinPath_startsAtAccountZero_andKeepsTheCurrentAddress() throws {
        #expect(
            try CardKeyPath.coinPath(current: [], coinType: 60, account: nil, newAccount: false, next: false) == eth0)
        let at3 = [h(44), h(60), h(2), n(0), n(3)]
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: nil, newAccount: false, next: false) == at3)
        // Another coin's tree starts at its account 0.
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 0, account: nil, newAccount: false, next: false)
                == [h(44), h(0), h(0), n(0), n(0)])
    }

    @Test func coinPath_nextAndNewAccount() throws {
        let at3 = [h(44), h(60), h(2), n(0), n(3)]
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: nil, newAccount: false, next: true)
                == [h(44), h(60), h(2), n(0), n(4)])
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: nil, newAccount: true, next: false)
                == [h(44), h(60), h(3), n(0), n(0)])
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: 7, newAccount: false, next: true)
                == [h(44), h(60), h(7), n(0), n(0)])
        #expect(
            try CardKeyPath.coinPath(current: [], coinType: 2, account: nil, newAccount: true, next: false)
                == [h(44), h(2), h(0), n(0), n(0)])
    }

    @Test func coinPath_conflictsAndOverflow_areRefused() {
        let at3 = [h(44), h(60), h(2), n(0), n(3)]
        #expect(throws: CardPathError.conflictingOptions(first: "new-account", second: "next")) {
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: nil, newAccount: true, next: true)
        }
        #expect(throws: CardPathError.conflictingOptions(first: "new-account", second: "account")) {
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: 1, newAccount: true, next: false)
        }
        let last = [h(44), h(60), h(0), n(0), n(ChildIndex.hardenedOffset - 1)]
        #expect(throws: CardPathError.indexOverflow) {
            try CardKeyPath.coinPath(current: last, coinType: 60, account: nil, newAccount: false, next: true)
        }
        let lastAccount = [h(44), h(60), h(ChildIndex.hardenedOffset - 1), n(0), n(0)]
        #expect(throws: CardPathError.indexOverflow) {
            try CardKeyPath.coinPath(current: lastAccount, coinType: 60, account: nil, newAccount: true, next: false)
        }
    }

    // MARK: - EIP-1581

    @Test func eip1581_isTheCardsRule() {
        #expect(CardKeyPath.isEIP1581([h(43), h(60), h(1581), h(0), n(0)]))
        #expect(!CardKeyPath.isEIP1581([h(43), h(60), h(1581), h(0)]), "at least 5 levels")
        #expect(!CardKeyPath.isEIP1581(eth0))
    }
}

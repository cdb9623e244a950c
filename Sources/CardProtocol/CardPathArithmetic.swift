import Foundation
import WalletCore
import WalletCrypto

// Path arithmetic for commands that name a key on the card (docs/card.md): a path as typed,
// resolved against the card's current path; the shortest DERIVE KEY data that reaches it; the
// Keycard app's coin screen; and the card's EIP-1581 rule. Pure: nothing here talks to a card.

/// Why a requested card path cannot be resolved or built. Nothing has been sent when one of
/// these is thrown; the caller names its command when it shows one.
public enum CardPathError: WalletError, Hashable {
    /// `../…` while the card's current key is the master, which has no parent.
    case parentOfMaster
    /// The resolved absolute path is deeper than the card's 10 levels.
    case tooDeep(path: DerivationPath, depth: Int)
    /// Two coin-screen choices that exclude each other (`newAccount` with `next` or `account`).
    case conflictingOptions(first: String, second: String)
    /// The next account or address index would reach 2³¹.
    case indexOverflow

    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`); the
    /// ids are the console's (`cardKey.…`), the one name of each refusal wherever it is made.
    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .parentOfMaster: "cardKey.parentOfMaster"
        case .tooDeep: "cardKey.pathTooDeep"
        case .conflictingOptions: "cardKey.conflictingOptions"
        case .indexOverflow: "cardKey.indexOverflow"
        }
    }

    public var description: String {
        switch self {
        case .parentOfMaster:
            "the card's current key is the master, which has no parent; use an m/… path (nothing was sent)"
        case .tooDeep(let path, let depth):
            "\(path) is \(depth) levels deep; the card derives at most 10 levels (nothing was sent)"
        case .conflictingOptions(let first, let second): "--\(first) and --\(second) cannot go together"
        case .indexOverflow: "the next account or address index would reach 2^31; choose --account N"
        }
    }
}

/// A path as typed for the card: where it starts and the levels after that. Unlike
/// `CardKeyPath` it has no depth limit yet: the limit applies to the resolved absolute path
/// (`resolve(current:)`), since `./…` counts from wherever the card stands.
public struct CardPathRequest: Sendable, Hashable {
    /// Where the levels start.
    public let source: DerivationSource
    /// The levels after the source.
    public let components: [ChildIndex]

    public init(source: DerivationSource, components: [ChildIndex]) {
        self.source = source
        self.components = components
    }

    /// An absolute path starts at the master, a relative one at the current key.
    public init(_ path: DerivationPath) {
        self.init(source: path.isAbsolute ? .master : .current, components: path.components)
    }

    /// Parses `m/…` (master), `../…` (parent), `./…`, `.` or a bare `0/5` (current), with
    /// surrounding blanks ignored; the levels are checked as `DerivationPath` checks them.
    ///
    /// - Throws: the `DerivationPath` error for a bad level, or `pathBadSegment` for an `m`
    ///   after a `../` or `./` prefix.
    public init(_ text: String) throws(HDError) {
        let (source, levels) = CardKeyPath.splitSource(text.trimmingCharacters(in: .whitespaces))
        guard let levels else {
            self.init(source: source, components: [])
            return
        }
        let path = try DerivationPath(source == .master ? "m/" + levels : levels)
        guard path.isAbsolute == (source == .master) else {
            throw .pathBadSegment(segment: "m", number: 1, reason: "m may only start the path")
        }
        self.init(source: source, components: path.components)
    }

    /// The absolute path this names when the card's current path is `current`.
    ///
    /// - Throws: `parentOfMaster` for `../…` at the master; `tooDeep` beyond the card's 10
    ///   levels.
    public func resolve(current: [ChildIndex]) throws(CardPathError) -> [ChildIndex] {
        let target: [ChildIndex]
        switch source {
        case .master, .pinless: target = components
        case .current: target = current + components
        case .parent:
            guard !current.isEmpty else { throw .parentOfMaster }
            target = current.dropLast() + components
        }
        guard target.count <= CardKeyPath.maximumDepth else {
            throw .tooDeep(path: DerivationPath(absolute: true, target), depth: target.count)
        }
        return target
    }
}

extension CardKeyPath {
    /// The shortest DERIVE KEY data reaching `target` from the current path `current`: from the
    /// master (the whole path), from the current key (what follows it) or from its parent (what
    /// follows the parent). Ties go to the master, then the current key: they depend least on
    /// the card's state. A `target` deeper than 10 levels (which `resolve` refuses) gives the
    /// master itself.
    public static func shortest(to target: [ChildIndex], from current: [ChildIndex]) -> CardKeyPath {
        var best = (source: DerivationSource.master, rest: target)
        if current.count <= target.count, Array(target.prefix(current.count)) == current {
            let rest = Array(target.dropFirst(current.count))
            if rest.count < best.rest.count { best = (.current, rest) }
        }
        if !current.isEmpty {
            let parent = Array(current.dropLast())
            if parent.count <= target.count, Array(target.prefix(parent.count)) == parent {
                let rest = Array(target.dropFirst(parent.count))
                if rest.count < best.rest.count { best = (.parent, rest) }
            }
        }
        return (try? CardKeyPath(source: best.source, components: best.rest))
            ?? (try! CardKeyPath(source: .master, components: []))
    }

    /// `m/44'/COIN'/ACCOUNT'/0/INDEX` from the current path (the Keycard app's coin screen):
    /// `newAccount` → the account after the current one (in this coin's tree), address 0;
    /// `account` → that account, keeping the current address index when it is the current
    /// account; `next` → the next address index; nothing → the current address of this coin,
    /// else account 0 address 0.
    ///
    /// - Throws: `conflictingOptions` for `newAccount` with `next` or `account` (named
    ///   `new-account`, `next`, `account`); `indexOverflow` at 2³¹.
    public static func coinPath(
        current: [ChildIndex], coinType: UInt32, account: UInt32?, newAccount: Bool,
        next: Bool
    ) throws(CardPathError) -> [ChildIndex] {
        if newAccount, next { throw .conflictingOptions(first: "new-account", second: "next") }
        if newAccount, account != nil { throw .conflictingOptions(first: "new-account", second: "account") }
        let inTree =
            current.count == 5 && current[0] == ChildIndex(44, hardened: true)
            && current[1] == ChildIndex(coinType, hardened: true) && current[2].hardened
            && current[3] == ChildIndex(0) && !current[4].hardened
        let currentAccount = inTree ? current[2].index : nil
        let currentIndex = inTree ? current[4].index : nil
        var a: UInt32
        var i: UInt32
        if newAccount {
            a = currentAccount.map { $0 + 1 } ?? 0
            i = 0
        } else {
            a = account ?? currentAccount ?? 0
            i = (a == currentAccount ? currentIndex : nil) ?? 0
            if next { i = a == currentAccount ? i + 1 : 0 }
        }
        guard a < ChildIndex.hardenedOffset, i < ChildIndex.hardenedOffset else { throw .indexOverflow }
        return [
            ChildIndex(44, hardened: true), ChildIndex(coinType, hardened: true), ChildIndex(a, hardened: true),
            ChildIndex(0), ChildIndex(i),
        ]
    }

    /// EIP-1581 as the card checks it: at least 5 levels under `m/43'/60'/1581'` (the only
    /// place it exports a private key, and never a chain code).
    public static func isEIP1581(_ path: [ChildIndex]) -> Bool {
        path.count >= 5
            && Array(path.prefix(3)) == [
                ChildIndex(43, hardened: true), ChildIndex(60, hardened: true),
                ChildIndex(1581, hardened: true),
            ]
    }
}

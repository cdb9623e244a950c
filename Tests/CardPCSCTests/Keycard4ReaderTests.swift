// A Keycard 4.0 card in a reader, as the console meets one: a simulated 4.0 card served through
// vpcd and pcscd (`kcs sim attach --profile 4.0`) is, to the console, a card in a reader — and its
// certificate comes from the kcs simulator CA, which kcs trusts for its own simulated cards only.
// So the console refuses it until the person trusts its identity key (`card.trust`); the trust is
// kept in the store and holds in the next process (docs/card.md, "Keycard 4.0").
import Foundation
import KCSTestSupport
import Testing

extension RealPCSCD {
    @Suite("A 4.0 card in a reader: trust by identity key")
    struct Keycard4ReaderTests {
        @Test func untrustedCA_isRefused_untilTheIdentityIsTrusted_andTheTrustIsKept() throws {
            try withAttachedSimulator(card: "reader4", profile: "4.0") { _, reader, _ in
                let home = try BatchHome()
                defer { home.remove() }
                let first = try home.run(
                    """
                    let c = card.connect pcsc "\(reader)"
                    print c.version, c.secureChannel, c.issuer == "unknown CA 02b0d0b881c3d677d5e87e7bc4669a9ad3d02b886e9fe98d1b45b4b835c52bf6b9"
                    try { card.init --pin "123456" --puk "987654321098" --duress "654321" } catch e { print e.kind }
                    try { card.trust "02ab" } catch e { print e.kind }
                    print len(card.trust())
                    try { card.trust (c.identity) } catch e { print e.kind }
                    print card.trust("{c.identity}").trusted == "{c.identity}"
                    print (card.init --pin "123456" --puk "987654321098" --duress "654321").initialized
                    card.login "123456"
                    card.load mnemonic "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
                    print card.export("m/44'/60'/0'/0/0").address
                    """, name: "first.kcs")
                #expect(first.code == 0, "\(first.err)")
                #expect(
                    first.out == """
                        4.0 V2 true
                        card.untrustedCertificate
                        card.trustNotConfirmed
                        0
                        card.trustNotCompared
                        true
                        true
                        0x9858EfFD232B4033E47d90003D41EC34EcaEda94

                        """, "\(first.err)")
                // A new process: the trust is in the store, the login goes straight through.
                let second = try home.run(
                    """
                    card.connect pcsc "\(reader)"
                    card.login "123456"
                    print card.export("m/44'/60'/0'/0/0").address, len(card.trust())
                    """, name: "second.kcs")
                #expect(
                    second.code == 0 && second.out == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94 1\n", "\(second.err)")
            }
        }
    }
}

/// The answer to reset decoded byte by byte (ISO/IEC 7816-3 §8.2; PC/SC part 3 for the pseudo-ATR of
/// a contactless card): TS, T0, the interface bytes with their meaning, the historical bytes and the
/// check byte, one line each (docs/card-explained.md, "The ATR").
public enum ATRExplainer {
    /// Fi for the high nibble of TA1 (nil: reserved).
    private static let fi: [Int?] = [
        372, 372, 558, 744, 1116, 1488, 1860, nil, nil, 512, 768, 1024, 1536, 2048, nil, nil,
    ]
    /// Di for the low nibble of TA1.
    private static let di: [Int?] = [nil, 1, 2, 4, 8, 16, 32, 64, 12, 20, nil, nil, nil, nil, nil, nil]

    /// The lines; a byte that does not fit the structure is said to be unknown.
    public static func lines(_ atr: [UInt8]) -> [ExplainLine] {
        guard atr.count >= 2 else { return [ExplainLine("ATR \(spaced(atr)): \(KeycardExplainer.unknown), too short")] }
        var out = [ExplainLine("ATR \(spaced(atr)) (\(atr.count) B)")]
        let ts = atr[0]
        out.append(
            ExplainLine(
                "TS \(hexByte(ts)) \(ts == 0x3B ? "direct convention" : ts == 0x3F ? "inverse convention" : "\(KeycardExplainer.unknown) convention")",
                depth: 1))
        var i = 1
        var y = atr[1] >> 4
        let k = Int(atr[1] & 0x0F)
        out.append(ExplainLine("T0 \(hexByte(atr[1])) Y1 \(bits(y)) · \(k) historical bytes", depth: 1))
        i = 2
        var level = 1
        var protocols: Set<UInt8> = []
        var lastT: UInt8 = 0
        while y != 0 {
            for (bit, letter) in [(UInt8(1), "A"), (2, "B"), (4, "C")] where y & bit != 0 {
                guard i < atr.count else {
                    return out + [
                        ExplainLine(
                            "T\(letter)\(level) missing: \(KeycardExplainer.unknown) (the ATR ends early)", depth: 1)
                    ]
                }
                out.append(
                    ExplainLine(
                        "T\(letter)\(level) \(hexByte(atr[i])) \(interface(letter, level, atr[i], t: lastT))", depth: 1)
                )
                i += 1
            }
            guard y & 8 != 0 else { break }
            guard i < atr.count else {
                return out + [ExplainLine("TD\(level) missing: \(KeycardExplainer.unknown)", depth: 1)]
            }
            let td = atr[i]
            lastT = td & 0x0F
            protocols.insert(lastT)
            out.append(
                ExplainLine(
                    "TD\(level) \(hexByte(td)) Y\(level + 1) \(bits(td >> 4)) · protocol T=\(lastT)\(lastT == 15 ? " (global interface bytes follow)" : "")",
                    depth: 1))
            y = td >> 4
            i += 1
            level += 1
        }
        let historical = Array(atr[min(i, atr.count)..<min(i + k, atr.count)])
        out += historicalLines(historical)
        i += k
        let needsTCK = protocols.contains { $0 != 0 }
        if needsTCK {
            guard i < atr.count else {
                return out + [ExplainLine("TCK missing: \(KeycardExplainer.unknown)", depth: 1)]
            }
            let check = atr[1...i].reduce(0, ^)
            out.append(
                ExplainLine(
                    "TCK \(hexByte(atr[i])) check byte: XOR of T0 … TCK is \(hexByte(check)) → \(check == 0 ? "correct" : "WRONG")",
                    depth: 1))
            i += 1
        }
        if i < atr.count {
            out.append(
                ExplainLine(
                    "\(atr.count - i) more bytes \(spaced(Array(atr[i...]))): \(KeycardExplainer.unknown)", depth: 1))
        }
        return out
    }

    private static func bits(_ y: UInt8) -> String {
        let names = [(UInt8(1), "TA"), (2, "TB"), (4, "TC"), (8, "TD")].filter { y & $0.0 != 0 }.map(\.1)
        return names.isEmpty ? "(none)" : names.joined(separator: " ")
    }

    private static func interface(_ letter: String, _ level: Int, _ b: UInt8, t: UInt8) -> String {
        switch (letter, level) {
        case ("A", 1):
            let f = fi[Int(b >> 4)], d = di[Int(b & 0x0F)]
            guard let f, let d else { return "Fi/Di \(KeycardExplainer.unknown) (reserved values)" }
            return "Fi = \(f), Di = \(d): \(f / d) clock cycles per bit"
        case ("B", 1): return "programming voltage (deprecated), ignored"
        case ("C", 1): return "extra guard time N = \(b)\(b == 0xFF ? " (minimum)" : "")"
        case ("A", 2): return "specific mode, protocol T=\(b & 0x0F)"
        case ("C", 2) where t == 0: return "T=0 work waiting time WI = \(b)"
        default: break
        }
        if t == 1 {
            switch letter {
            case "A": return "T=1 IFSC = \(b) bytes"
            case "B": return "T=1 BWI = \(b >> 4), CWI = \(b & 0x0F)"
            case "C": return "T=1 error detection: \(b & 1 == 0 ? "LRC" : "CRC")"
            default: break
            }
        }
        if t == 15 {
            switch letter {
            case "A":
                return
                    "clock stop \(["not supported", "state L", "state H", "no preference"][Int(b >> 6)]), classes \(hexByte(b & 0x3F))"
            case "B": return "standard or proprietary use of C6: \(hexByte(b))"
            default: break
            }
        }
        return "\(KeycardExplainer.unknown) interface byte for T=\(t)"
    }

    private static func historicalLines(_ h: [UInt8]) -> [ExplainLine] {
        guard let first = h.first else { return [ExplainLine("no historical bytes", depth: 1)] }
        var out = [ExplainLine("historical bytes \(spaced(h))\(printable(h))", depth: 1)]
        switch first {
        case 0x80:
            out.append(ExplainLine("80 category: compact-TLV objects follow", depth: 2))
            var i = 1
            let names: [UInt8: String] = [
                0x1: "country code", 0x2: "issuer identification", 0x3: "card service data", 0x4: "initial access data",
                0x5: "card issuer's data", 0x6: "pre-issuing data", 0x7: "card capabilities", 0x8: "status indicator",
                0xF: "application identifier",
            ]
            while i < h.count {
                let tag = h[i] >> 4, n = Int(h[i] & 0x0F)
                let value = Array(h[min(i + 1, h.count)..<min(i + 1 + n, h.count)])
                out.append(
                    ExplainLine(
                        "\(hexByte(h[i])) \(names[tag] ?? "\(KeycardExplainer.unknown) object") \(spaced(value))\(printable(value))",
                        depth: 2))
                i += 1 + n
            }
        case 0x00: out.append(ExplainLine("00 category: proprietary, status in the last 3 bytes", depth: 2))
        case 0x10: out.append(ExplainLine("10 category: a DIR data reference follows", depth: 2))
        default:
            out.append(
                ExplainLine(
                    "\(hexByte(first)) proprietary historical bytes (contactless pseudo-ATR: the card's own)", depth: 2)
            )
        }
        return out
    }

    private static func printable(_ b: [UInt8]) -> String {
        guard !b.isEmpty, b.allSatisfy({ (0x20...0x7E).contains($0) }) else { return "" }
        return " \"\(String(decoding: b, as: UTF8.self))\""
    }
}

extension CardTracer {
    /// At a reader's connection: the ATR decoded (wire level and up), before the first exchange.
    public func atr(_ bytes: [UInt8], reader: String) {
        guard level >= .wire, !bytes.isEmpty else { return }
        lineSink?(
            ["── ATR of the card in \(reader) " + String(repeating: "─", count: 20)]
                + ATRExplainer.lines(bytes).map { "   " + $0.description })
    }
}

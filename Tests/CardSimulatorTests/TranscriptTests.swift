// docs/keycard-protocol.md §16.2 "Session transcript (SC V1)", card side: the transcript's command APDUs are fed
// to a 3.1.2 card whose random draws replay the transcript's inputs; every response must match byte for
// byte (response data ‖ outer SW 9000).
import CardProtocol
import Testing
import WalletCrypto

@testable import CardSimulator

@Suite("§16.2 SC V1 session transcript, card side")
struct TranscriptTests {
    /// The transcript's card-side random inputs, in the applet's draw order (see `KeycardApplet`).
    static func transcriptCard(log: APDULog? = nil) -> SimulatedCard {
        let random = ReplayRandom(chunks: [
            h("000102030405060708090A0B0C0D0E0F"),  // instance UID
            h("0C737DF4B5BC3F4DF4925B07CE89B5E5B6AA2F5331D30E552F5E0E572783041D"),  // pre-INIT SC key
            h("8BE7DDAD5006A3162871F4B65D8E1EB4316AE0F3733B50B23415D31D5FB31056"),  // post-INIT SC key
            h("D8718559141E0E23134B69D9559846295625D46A81B40B484D7D254B3067626C"),  // PAIR card challenge
            h("7E3CC55275357CE3FF3A1F5C32F0666F794DBB9D8DC6D86D361863768FBF5645"),  // pairing salt
            h("59F11DB8F78DF4F7EA5F6A9AF11C525000F64084D3F630FA21945DFED11EC84C"),  // OPEN SC salt
            h("57D3DE5C1217C83F3A9D90B29D240091"),  // OPEN SC IV
            h("1F0596199B1B52BB342832360E7A2313E8BF2C46FCCCD8F38F26C7B9158262F5"),  // MA card random
        ])
        return SimulatedCard(profile: .v3_1_2, random: random, log: log)
    }

    /// (step, command APDU, expected response data before the outer 9000).
    static let steps: [(String, String, String)] = [
        (
            "SELECT pre-init", "00A4040009A00000080400010101",
            "804104D338301AE1B93C24BD4E6BACBB378079777973235F6920B9B993E7068EA0C40436E14F016B37824E6795E0D8BC487AF8FB1222A036E67837460CC83416EA8FBA"
        ),
        (
            "INIT",
            "80FE0000924104B2B1E46CB1BB37DA54DD6AD41A3BC6196B45C1B4D76997158A66987F5B179A69EA097561128B535D7F7FA170A253A102D100E66BED5FD3D32E13E18E8118EFF2CD655E7EEA1DF4B84EE0465D960ADA6FEEAA15E5425F1A2C644C0E327D8702D67601485FB144C487C165088D7C1FC9EBBE2F76D2A2461022B5E2A3283B172024234D36DDCE2F68B8E54FCE9561B60FD8",
            ""
        ),
        (
            "SELECT after INIT", "00A4040009A00000080400010101",
            "A4618F10000102030405060708090A0B0C0D0E0F804104595929FE839A0CC2EAF199DEC2E3829593ED1E66A3987AE99CEDF1A91CCF1238475319416A99145CACC200332D5E151FFC1F0D163A1CE0C212F753F7A642EC14020203010201648E008D011F"
        ),
        (
            "PAIR step 1", "80120000202613CC1403B08322B6DB936531F542FBD6BE3F0F0C98703AA41303F1064678F9",
            "08391C9139D025B0D7E387DBD310D52BCCEB0596EBCA32ECB5B05E29E43B811FD8718559141E0E23134B69D9559846295625D46A81B40B484D7D254B3067626C"
        ),
        (
            "PAIR step 2", "8012010020243395DA5F3182B82DD30189E793FD786BD4AE276190DCB85F41D79B03D5D141",
            "007E3CC55275357CE3FF3A1F5C32F0666F794DBB9D8DC6D86D361863768FBF5645"
        ),
        (
            "OPEN SECURE CHANNEL",
            "801000004104D328964D0A94C8EF5839AC523693D47B3AC6CA6D080CE7C766398FD5D4319B16AEED6EF8A08534B525F314BA59357702E13F8AE48847F047D001F02B50092AB3",
            "59F11DB8F78DF4F7EA5F6A9AF11C525000F64084D3F630FA21945DFED11EC84C57D3DE5C1217C83F3A9D90B29D240091"
        ),
        (
            "MUTUALLY AUTHENTICATE",
            "80110000407228F5E1196E3566EB7591FBD29BD625BFDD9012DD715D3D79E0C326AE6C4CBA1427DE22E088FBDE23C7ADC36F73488F55B92150377E30CC09398BB844DFCE51",
            "A0EE1EAC18B82F807B4FF9EE79468E725FD20B55F171FCDEB5FBEDF174EB7E75A19F047DFCEFAA21A0C5633503C5DAB52AE1B4232E0D3D62AA72D5CCD45E5FDF"
        ),
        (
            "GET STATUS", "80F2000020A7148810C8B6AFC7D8553DB0C1A3E9F50277439015A56D008D2D0ECCD9089614",
            "A88F506B3CF7490A49135CB31C69767BB7AAD8879B3178FFD91F0174DE83187F"
        ),
        (
            "VERIFY PIN 111111 (wrong)", "80200000202D7D71DB56DE39896D019BBF233247906DFD64FCE11E16031ED6050C1B7D823E",
            "7A5B2F99D1D22736F83F71386C7BAD995F1E65D78A4CA083E5F33BCC889846A5"
        ),
        (
            "VERIFY PIN 123456", "80200000202499BE7A637BD57FED99059AB1BCFE1AFE9B9FE366E33B6DC920331755206C17",
            "F03496678E0A56CB0888C6BFE40098B4E7AD34E3861F03B5F1016192031FC0BC"
        ),
        (
            "INS 84 (unknown, stale IV)", "808420002099B6B586BAD0035B8299107D5816D1B26A87343D3D793372C565CE32BB81B85D",
            "E57A9BA14A9309348BA97F171D7EF3CE41C2DAA949C8ED328D1296584C427269"
        ),
    ]

    @Test func transcript_everyCardResponse_matchesByteForByte() throws {
        let card = Self.transcriptCard()
        for (step, command, expected) in Self.steps {
            let response = try card.transmit(h(command))
            #expect(Hex.encode(response).uppercased() == expected + "9000", "\(step)")
        }
    }

    @Test func transcript_decryptedResponses_matchTheTranscript() throws {
        // The session keys of the transcript, to read the wrapped answers.
        let enc = h("00E547E1EFCC1C2BCDC552BA26187431AD812ADC79497E565E7FA411631A5D82")
        let card = Self.transcriptCard()
        var decrypted: [String] = []
        var lastResponseMAC: [UInt8] = []
        for (step, command, _) in Self.steps {
            let c = h(command)
            let r = try card.transmit(c)
            guard ["MUTUALLY", "GET", "VERIFY", "INS"].contains(where: { step.hasPrefix($0) }) else { continue }
            let iv = step.hasPrefix("INS") ? lastResponseMAC : Array(c[5..<21])
            let plain = TestCrypto.decrypt(Array(r[16..<(r.count - 2)]), key: enc, iv: iv) ?? []
            decrypted.append(Hex.encode(plain).uppercased())
            lastResponseMAC = Array(r[0..<16])
        }
        #expect(
            decrypted == [
                "1F0596199B1B52BB342832360E7A2313E8BF2C46FCCCD8F38F26C7B9158262F59000",
                "A3090201030201050101009000",
                "63C2",
                "9000",
                "6D00",
            ])
    }

    @Test func transcript_staleIV_isThePreviousCardMAC() throws {
        let card = Self.transcriptCard()
        var responses: [[UInt8]] = []
        for (_, command, _) in Self.steps { responses.append(try card.transmit(h(command))) }
        let verifyResponse = responses[responses.count - 2]
        #expect(Array(verifyResponse[0..<16]) == h("F03496678E0A56CB0888C6BFE40098B4"))
    }

    @Test func transcript_apduLog_recordsRawBytesOnly() throws {
        let log = APDULog()
        let card = Self.transcriptCard(log: log)
        for (_, command, _) in Self.steps { _ = try card.transmit(h(command)) }
        #expect(log.exchanges.count == Self.steps.count)
        #expect(log.text.hasPrefix("> 00A4040009A00000080400010101\n< 804104D338301AE1"))
        // Neither channel key, the pairing secret, the pairing key, the session keys nor the PIN/PUK.
        for secret in [
            "0C737DF4B5BC3F4DF4925B07CE89B5E5B6AA2F5331D30E552F5E0E572783041D",
            "8BE7DDAD5006A3162871F4B65D8E1EB4316AE0F3733B50B23415D31D5FB31056",
            "675DEABB0D7C724B4A36CAAD0E280826159E89886F7082535D431E924848BCF1",
            "D2AE98072AC60129DB1C9B25681C6C17C0CA575EF33E58009257DF27C30DB42D",
            "00E547E1EFCC1C2BCDC552BA26187431AD812ADC79497E565E7FA411631A5D82",
            "4BE95D36A79B97F25576E1C36376DC6D2BCFAFC7AB143F61E3CFA1AE5E6B30C2",
            "313233343536", "313233343536373839303132",
        ] {
            #expect(!log.text.contains(secret))
        }
    }
}

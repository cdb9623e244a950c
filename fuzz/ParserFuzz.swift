// libFuzzer target for the language front end: any bytes through the lexer, the parser (with a
// command table like the real one), the AST printer and the diagnostics renderer must neither
// crash nor hang. Built and run by `make fuzz` (and briefly by `make test`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let source = Source(name: "fuzz.kcs", bytes: bytes)
    let table = CommandTable(commands: [
        "card.pair", "derive", "sign", "import.mnemonic", "keystore.load", "len", "print.x",
    ])
    let (program, diagnostics) = Parser.parse(source: source, commands: table)
    _ = ASTPrinter.print(program)
    _ = DiagnosticRenderer.render(diagnostics, source: source)
    _ = program.commands
    return 0
}

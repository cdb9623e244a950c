import EthRPC
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletStore
import CardProtocol
import CardSimulator

// The wallet core's errors keep their stable ids when a builtin throws them, so a script's
// `catch e` sees `e.kind == "mnemonic.unknownWord"` rather than a generic builtin failure.
extension WalletCryptoError: IdentifiableError {}
extension HDError: IdentifiableError {}
extension MnemonicError: IdentifiableError {}
extension KeystoreError: IdentifiableError {}
extension AddressError: IdentifiableError {}
extension Base58Error: IdentifiableError {}
extension Bech32Error: IdentifiableError {}
extension RLPError: IdentifiableError {}
extension WIFError: IdentifiableError {}
extension LegacyAddressError: IdentifiableError {}
extension SLIP44.LookupError: IdentifiableError {}
extension AtomicFileError: IdentifiableError {}
extension BuiltinError: IdentifiableError {}
extension StoreError: IdentifiableError {}
extension SessionError: IdentifiableError {}
extension KeyCommandError: IdentifiableError {}
extension KeystoreCommandError: IdentifiableError {}
extension RotationCommandError: IdentifiableError {}
extension CardError: IdentifiableError {}
extension CardCommandError: IdentifiableError {}
extension TransportError: IdentifiableError {}
extension SimulatorError: IdentifiableError {}
extension EthereumError: IdentifiableError {}
extension EthCommandError: IdentifiableError {}
extension RPCError: IdentifiableError {}

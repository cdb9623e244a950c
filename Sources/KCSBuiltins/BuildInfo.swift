import WalletCore

/// What the console says about itself (`kcs --version`, the greeting): the layers above see
/// the wallet core's version only through here.
public enum BuildInfo {
    public static let version = WalletCoreInfo.version
}

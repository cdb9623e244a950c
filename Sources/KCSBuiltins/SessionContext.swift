import KCSRuntime
import WalletSession

// The application layer's session is the context every builtin call gets (`CallArguments.context`).
extension Session: BuiltinContext {}

extension CallArguments {
    /// The console session, or an error naming the command when the host has none.
    func session() throws -> Session {
        guard let session = context as? Session else { throw SessionError.noSession }
        return session
    }
}

extension Session {
    /// Every builtin body runs watched (the effects log, off unless `$KCS_EFFECTS_LOG` is set).
    public func running(_ command: String, _ body: () throws -> Value) throws -> Value {
        try watchingEffects(of: command, body)
    }
}

/// The name of one service failure, in the client's error (`data.debugId`) and in the host's log
/// line for it, so a support request can find what happened: `sb-` and 16 hex digits.
public enum DebugID {
    public static func make<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        let digits = String(generator.next(), radix: 16)
        return "sb-" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A fresh id from the system's random source.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }
}

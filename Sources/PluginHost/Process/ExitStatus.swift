import Jansson

/// How a plugin's process ended.
public enum ExitStatus: Sendable, Equatable, CustomStringConvertible {
    case exited(code: Int32)
    case signaled(Int32)

    /// From a `waitpid` status.
    init(waitStatus status: Int32) {
        let signal = status & 0x7F
        self = signal == 0 ? .exited(code: (status >> 8) & 0xFF) : .signaled(signal)
    }

    /// `{"exitStatus": N}` or `{"signal": N}`, for an error's `data`.
    var members: JSONObject {
        switch self {
        case .exited(let code): ["exitStatus": .integer(Int64(code))]
        case .signaled(let signal): ["signal": .integer(Int64(signal))]
        }
    }

    public var description: String {
        switch self {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }
}

import ChatDomain
import Jansson
import SwitchboardCore

/// The store flags a recording's header keeps, so `switchboard replay` can run a host like the recorded one.
extension StoreConfiguration {
    /// `now` is always a fixed time: the `--now` given, else the clock's time when the recording started.
    func recordingArgs() throws -> JSONObject {
        var args: JSONObject = ["now": .string(Timestamp.format(try makeClock().now())), "backend": .string(backend.rawValue),
                                "chatUser": .string(chatUser)]
        if let account { args["account"] = .string(account) }
        if let simulate { args["simulate"] = .string(simulate.rawValue) }
        return args
    }

    /// The configuration a replay runs: the recorded flags, always on the in-memory backend.
    init(replaying args: JSONObject) throws(ConfigurationError) {
        self.init(backend: .memory, now: args["now"]?.stringValue, account: args["account"]?.stringValue)
        if let user = args["chatUser"]?.stringValue { chatUser = user }
        if let mode = args["simulate"]?.stringValue {
            guard let simulation = ChatSimulation(rawValue: mode) else {
                throw ConfigurationError("the recording's args: simulate is not one of \(ChatSimulation.allCases.map(\.rawValue))")
            }
            simulate = simulation
        }
        do {
            try validate()
            _ = try makeClock()
        } catch {
            // The values are the recording's text: the error names the flag, not what the file holds.
            throw ConfigurationError("the recording's args: \(error.withoutValue)")
        }
    }
}

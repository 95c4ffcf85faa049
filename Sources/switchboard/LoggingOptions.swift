import ArgumentParser
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `--log-level`, shared by every subcommand; logs always go to stderr.
struct LoggingOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Log level on stderr: trace, debug, info, notice, warning, error, critical.",
        discussion: "Defaults to $SWITCHBOARD_LOG_LEVEL, else warning."
    ))
    var logLevel: String?

    func validate() throws {
        _ = try resolvedLevel()
    }

    func resolvedLevel() throws -> Logger.Level {
        let fromEnvironment = getenv("SWITCHBOARD_LOG_LEVEL").map { String(cString: $0) }
        guard let text = logLevel ?? fromEnvironment, !text.isEmpty else { return .warning }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ValidationError("unknown log level \"\(text)\": use trace, debug, info, notice, warning, error or critical")
        }
        return level
    }

    /// Sends every log line to stderr at the chosen level and returns the host's logger.
    func makeLogger() throws -> Logger {
        let level = try resolvedLevel()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "switchboard")
    }
}

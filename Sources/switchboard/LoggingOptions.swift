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
        do {
            return try Self.level(logLevel)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// `text`, else `$SWITCHBOARD_LOG_LEVEL`, else `warning`.
    static func level(_ text: String?) throws(ConfigurationError) -> Logger.Level {
        let fromEnvironment = getenv("SWITCHBOARD_LOG_LEVEL").map { String(cString: $0) }
        guard let text = text ?? fromEnvironment, !text.isEmpty else { return .warning }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ConfigurationError("unknown log level \"\(text)\": use trace, debug, info, notice, warning, error or critical")
        }
        return level
    }

    func makeLogger() throws -> Logger {
        Self.makeLogger(level: try resolvedLevel())
    }

    /// Sends every log line to stderr at `level` and returns the host's logger.
    static func makeLogger(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "switchboard")
    }
}

import ArgumentParser
import Logging
import SwitchboardCore
import SwitchboardStorage
#if canImport(Glibc)
import Glibc
#endif

/// `switchboard seed [--reset]`: writes the demo data of every domain not seeded yet (done
/// automatically on first use) and says what it did.
struct Seed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Seed the database with demo data (first use does it on its own).",
        discussion: """
            Seeds each domain whose demo data is missing; one seeded already is left as it is, and \
            --feed-items/--mail-messages apply only to domains seeded now. With --reset the database \
            is deleted and seeded afresh; a file that is not a switchboard database is never deleted, \
            and a database another switchboard process has open (a host, call, seed, mcp) is refused.
            """
    )

    @Flag(help: "Delete the database and seed it again.")
    var reset = false

    @OptionGroup var store: StoreOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if store.backend == .memory { throw ValidationError("seed writes the database; --backend memory has nothing to seed") }
    }

    func run() throws {
        let logger = try logging.makeLogger()
        let configuration = store.configuration
        if case .postgres(let url) = configuration.location {
            try Self.seedPostgres(url: url, configuration, logger: logger, reset: reset)
            return
        }
        let seeding: [DemoSeed.Outcome]
        do {
            // A reset checks the file itself: a switchboard database, open in no other process (AppDatabase's `reset`).
            if !reset { try configuration.checkStorage() }
            seeding = try SQLiteBackend.seed(configuration, logger: logger, reset: reset)
        } catch let error as ServiceError {
            writeLine("switchboard: \(reset ? "cannot reset: " : "")\(error)", to: STDERR_FILENO)
            throw ExitCode.failure
        } catch let error as DatabaseInUse {
            writeLine("switchboard: cannot reset: \(error)", to: STDERR_FILENO)
            throw ExitCode.failure
        }
        writeLine(Self.report(seeding, path: try configuration.storagePath()), to: STDOUT_FILENO)
    }

    /// Migrates and seeds a PostgreSQL database where it lacks that, and says what it holds.
    private static func seedPostgres(url: String, _ configuration: StoreConfiguration, logger: Logger, reset: Bool) throws {
        guard !reset else {
            writeLine("switchboard: cannot reset: --reset deletes a SQLite file; drop and create the PostgreSQL database instead", to: STDERR_FILENO)
            throw ExitCode.failure
        }
        do {
            let backend = PostgresBackend(url: url, BackendContext(options: configuration, clock: try configuration.makeClock(), logger: logger,
                                                                   progress: SeedProgress(), signal: ChangeSignal(), followsOtherProcesses: false))
            try configuration.checkStorage()
            writeLine(Self.report(try backend.seed(), path: backend.location), to: STDOUT_FILENO)
        } catch {
            writeLine("switchboard: \(error)", to: STDERR_FILENO)
            throw ExitCode.failure
        }
    }

    /// "seeded PATH: mail (400 messages), feed (1000 items)", and what was seeded already.
    static func report(_ outcomes: [DemoSeed.Outcome], path: String) -> String {
        let now = outcomes.filter(\.seededNow).map(\.summary).joined(separator: ", ")
        let before = outcomes.filter { !$0.seededNow }.map(\.summary).joined(separator: ", ")
        if now.isEmpty { return "already seeded \(path): \(before); use --reset to seed afresh" }
        if before.isEmpty { return "seeded \(path): \(now)" }
        return "seeded \(path): \(now); already seeded: \(before)"
    }
}

import ArgumentParser
import Logging

/// `switchboard seed [--reset]`: writes the demo data (done automatically on first run).
struct Seed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Seed the database with demo data (first run does it on its own).",
        discussion: "With --reset the database is deleted and seeded afresh."
    )

    @Flag(help: "Delete the database and seed it again.")
    var reset = false

    @OptionGroup var store: StoreOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if store.backend == .memory { throw ValidationError("seed writes the SQLite database; --backend memory has nothing to seed") }
    }

    func run() throws {
        let logger = try logging.makeLogger()
        let path = try store.configuration.databasePath()
        if reset { DemoSeed.removeDatabase(at: path) }
        _ = try DomainServices.open(store.configuration, logger: logger)
        writeLine("seeded \(path)", to: 2)
    }
}

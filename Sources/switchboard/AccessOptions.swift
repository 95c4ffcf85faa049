import ArgumentParser
import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

/// `--allow-read DIR` (repeatable) of `serve` and `call`: the folders whose files requests may read
/// (`mail.import {path}`, later plugins). Without it: the current directory and the host's data folder.
struct AccessOptions: ParsableArguments {
    @Option(name: .customLong("allow-read"), help: ArgumentHelp(
        "A folder whose files requests may read, e.g. for mail.import (repeatable).",
        discussion: "Default: the current directory (unless it is /) and the data folder ($XDG_DATA_HOME/switchboard). Paths outside, symbolic links out included, are refused with one error that does not say whether the file exists.",
        valueName: "dir"
    ))
    var allowRead: [String] = []

    func validate() throws {
        _ = try readRoots()
    }

    /// The folders `--allow-read` names, else the defaults.
    func readRoots() throws -> ReadRoots {
        guard !allowRead.isEmpty else { return Self.defaultRoots() }
        do {
            return try ReadRoots(resolving: allowRead)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The current directory and the data folder, where it exists: what a bare `switchboard` allows.
    static func defaultRoots() -> ReadRoots {
        ReadRoots.defaults(dataFolder: StoreConfiguration.dataFolder())
    }
}

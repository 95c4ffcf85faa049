#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import JSONRPC

/// Keeps glibc's allocator from holding on to memory a long-running host no longer uses.
///
/// glibc gives each thread that allocates while another holds the lock an arena of its own, up to
/// eight per core, and a freed block goes back to its arena, not to the system: requests run on
/// whichever thread is free, so over hours a host's memory spread over ever more arenas, each keeping
/// its free pages. ``start()`` caps the arenas at one per core (at least two) and gives free pages back
/// every ``trimSeconds`` seconds (`malloc_trim`, from a thread of its own).
///
/// The cap is left alone when the user chose one (`MALLOC_ARENA_MAX`, or `glibc.malloc.arena_max` in
/// `GLIBC_TUNABLES`); `SWITCHBOARD_MALLOC_UPKEEP=off` turns off both the cap and the trimming (to
/// measure what they cost, docs/benchmarks.md).
enum MallocUpkeep {
    /// Seconds between two trims.
    static let trimSeconds: UInt32 = 10

    /// Caps the arenas and starts trimming, once per process (later calls do nothing). Call it before
    /// the threads that serve requests start: glibc fixes its arena limit once it has more than eight.
    static func start() {
        _ = started
    }

    private static let started: Void = {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) } }
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        guard enabled(environment: environment) else { return }
        if let cap = arenaCap(environment: environment, cores: cores) {
            sb_malloc_cap_arenas(Int32(clamping: cap))
        }
        // Without a thread (the process at its limit) memory is not trimmed; nothing else changes.
        try? OSThread.detach(name: "sb-malloc-trim") {
            while true {
                sleep(trimSeconds)
                sb_malloc_trim()
            }
        }
    }()

    /// Whether to cap and trim at all: not when `SWITCHBOARD_MALLOC_UPKEEP` is `off` (or `0`).
    static func enabled(environment: (String) -> String?) -> Bool {
        switch environment("SWITCHBOARD_MALLOC_UPKEEP") {
        case "off", "0": false
        default: true
        }
    }

    /// The arena cap to set for `cores` cores, or `nil` when the user set one through the environment.
    static func arenaCap(environment: (String) -> String?, cores: Int) -> Int? {
        if environment("MALLOC_ARENA_MAX") != nil { return nil }
        if let tunables = environment("GLIBC_TUNABLES"), tunables.contains("glibc.malloc.arena_max") { return nil }
        return max(2, cores)
    }
}

import FuzzSupport

/// The fuzzers in this binary; `SWITCHBOARD_FUZZ_TARGET` picks one (see FuzzDriver).
let targets: [FuzzEntry] = [
        FuzzEntry(FramerFuzz.self),
    FuzzEntry(EnvelopeFuzz.self),
    FuzzEntry(CodableFuzz.self),
    FuzzEntry(CursorFuzz.self),
    FuzzEntry(TimestampFuzz.self),
    FuzzEntry(PluginReaderFuzz.self),
]

/// The program's entry point (SwiftPM links `main` to `CoreFuzzers_main`).
@_cdecl("CoreFuzzers_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main(argc, argv, targets: targets)
}

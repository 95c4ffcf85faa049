import FuzzSupport

/// The fuzzers in this binary; `SWITCHBOARD_FUZZ_TARGET` picks one (see FuzzDriver).
let targets: [FuzzEntry] = [
    FuzzEntry(DispatchFuzz.self),
    FuzzEntry(CalendarImportFuzz.self),
    FuzzEntry(ImportFuzz.self),
]

/// The program's entry point (SwiftPM links `main` to `HostFuzzers_main`).
@_cdecl("HostFuzzers_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main(argc, argv, targets: targets)
}

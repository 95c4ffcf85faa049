import CLibFuzzer
#if canImport(Glibc)
import Glibc
#endif

/// A target as the driver keeps it.
public struct FuzzEntry: Sendable {
    let name: String
    let summary: String
    let maxLength: Int
    let run: @Sendable ([UInt8]) -> Void

    public init<Target: FuzzTarget>(_ target: Target.Type) {
        name = Target.name
        summary = Target.summary
        maxLength = Target.maxLength
        run = { Target.run($0) }
    }
}

/// Picks the target named by `SWITCHBOARD_FUZZ_TARGET` and hands libFuzzer's inputs to it.
///
/// With `SWITCHBOARD_FUZZ_TARGET=list` it prints `name max-length summary` per target and exits:
/// that is how `scripts/fuzz --list` learns which binary holds which target.
public enum FuzzDriver {
    nonisolated(unsafe) private static var selected: FuzzEntry?

    /// The program's `main`: selects the target, then runs libFuzzer with the command line.
    ///
    /// SwiftPM links an executable's `main` to `<Module>_main`, so libFuzzer's own `main` cannot be
    /// used; its driver is called instead.
    public static func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            targets: [FuzzEntry]) -> CInt {
        let wanted = getenv("SWITCHBOARD_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        if wanted == "list" {
            for target in targets { print("\(target.name) \(target.maxLength) \(target.summary)") }
            return 0
        }
        guard let target = targets.first(where: { $0.name == wanted }) else {
            let names = targets.map(\.name).joined(separator: ", ")
            printError("set SWITCHBOARD_FUZZ_TARGET to one of: \(names)")
            return 2
        }
        selected = target
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
            FuzzDriver.selected?.run(Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        }
    }
}

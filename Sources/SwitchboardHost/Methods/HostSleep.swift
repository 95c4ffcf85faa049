import JSONRPC
import Jansson

/// `host.sleep` — a deliberately slow method for tests and client development: sleeps `ms`
/// milliseconds in `steps` equal steps, sends `$/progress` after each step when the request carries
/// `params._meta.progressToken`, and stops at once when cancelled (answering `-32800`).
///
/// With `busy: true` it keeps a thread busy for the time instead, never looking at its cancellation:
/// a request caught in a long computation, to show that the host answers others meanwhile and that
/// its drain at exit does not wait for it longer than `--drain-timeout`.
public enum HostSleep: RPCMethod {
    public static let name = "host.sleep"
    public static let summary = "Sleeps for ms milliseconds in steps, reporting progress; for tests (cancellable unless busy)."
    public static let runsLong = true

    public struct Params: Decodable, Sendable {
        public var ms: Int
        public var steps: Int?
        /// Spins instead of sleeping, and ignores cancellation.
        public var busy: Bool?
    }

    public struct Result: Codable, Sendable, Equatable {
        /// Milliseconds slept.
        public var slept: Int
        public var steps: Int
    }

    static let maxMilliseconds = 600_000
    static let maxSteps = 10_000

    static func run(_ params: Params, context: RequestContext) async throws -> Result {
        guard (0...maxMilliseconds).contains(params.ms) else {
            throw JSONFieldError(field: "ms", expected: "integer 0...\(maxMilliseconds)", got: String(params.ms))
        }
        let steps = params.steps ?? 10
        guard (1...maxSteps).contains(steps) else {
            throw JSONFieldError(field: "steps", expected: "integer 1...\(maxSteps)", got: String(steps))
        }
        let stepNanoseconds = UInt64(params.ms) * 1_000_000 / UInt64(steps)
        for step in 1...steps {
            if params.busy == true {
                let end = monotonicNanoseconds() + stepNanoseconds
                while monotonicNanoseconds() < end {}
            } else {
                try await Task.sleep(nanoseconds: stepNanoseconds)
            }
            context.reportProgress(["step": .integer(Int64(step)), "of": .integer(Int64(steps))])
        }
        return Result(slept: params.ms, steps: steps)
    }
}

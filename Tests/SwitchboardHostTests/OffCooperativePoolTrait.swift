import Testing

/// Runs each test of a suite on threads of its own (``ThreadPerJobExecutor``), a few tests at a time
/// (``TestSlots``). Every suite that waits on a spawned process — the binary tests, the terminal
/// tests — carries it; `BinaryHarness.expectOffCooperativePool` records an issue when a blocking wait
/// runs on the cooperative pool anyway, so a new suite that forgets the trait fails rather than slows
/// the whole run down on a small machine.
struct OffCooperativePoolTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        // The suite's own scope is not a test: only test cases take a slot.
        guard testCase != nil else {
            try await function()
            return
        }
        try await TestSlots.shared.withSlot {
            try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) {
                try await function()
            }
        }
    }
}

extension Trait where Self == OffCooperativePoolTrait {
    /// Each test runs on threads of its own, outside the cooperative pool; see ``OffCooperativePoolTrait``.
    static var offCooperativePool: Self { OffCooperativePoolTrait() }
}

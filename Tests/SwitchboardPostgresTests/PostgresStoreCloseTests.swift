@testable import SwitchboardPostgres
import Testing

/// `PostgresStore.close()` waits for the pool's `run()` to end, within a bound: postgres-nio's `run()` has
/// been seen to miss its cancel, and a close must not wait for ever (`PostgresStore.ends(_:within:)`).
@Suite("PostgreSQL: closing a store is bounded")
struct PostgresStoreCloseTests {
    @Test("a task that ends is seen ending")
    func ends() async {
        let task = Task<Void, Never> {}
        #expect(await PostgresStore.ends(task, within: .seconds(3_600)))
    }

    @Test("in a cancelled task the wait is the same: a task that ends a second later is seen ending")
    func endsWhenCancelled() async {
        // The second is how long the task runs, not a bound on the test: a wait cut short by the
        // cancel (as an AsyncStream's was) returns before it, false.
        let task = Task<Void, Never> { try? await Task.sleep(for: .seconds(1)) }
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await PostgresStore.ends(task, within: .seconds(3_600))
        }
        #expect(await waiter.value)
    }

    @Test("a task that never ends is given up after the bound, and left running")
    func neverEnds() async {
        let (never, keep) = AsyncStream<Void>.makeStream()
        let task = Task<Void, Never> { for await _ in never {} }
        #expect(await PostgresStore.ends(task, within: .milliseconds(20)) == false)
        keep.finish()
        await task.value
    }
}

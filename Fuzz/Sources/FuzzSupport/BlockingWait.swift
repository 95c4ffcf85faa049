import Dispatch

/// Runs `work` on the task pool and blocks the calling thread (libFuzzer's, outside any task) until
/// it is done.
public func blockingWait<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<Value>()
    Task {
        box.value = await work()
        done.signal()
    }
    done.wait()
    guard let value = box.value else { fatalError("blockingWait: the task gave no value") }
    return value
}

/// Hands a value from the task to the waiting thread; the semaphore orders the two accesses.
private final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}

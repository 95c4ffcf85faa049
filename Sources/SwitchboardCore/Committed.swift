/// What a write returns: its result, and the domain's state read inside the write's own
/// transaction, so no other writer's change can fall between the two. A client that passes `state`
/// to `*.changes` next sees every change after this write, including other writers'.
public struct Committed<Value: Sendable>: Sendable {
    public var value: Value
    /// The domain's state right after the write, in its transaction.
    public var state: String

    public init(_ value: Value, state: String) {
        self.value = value
        self.state = state
    }
}

extension Committed: Equatable where Value: Equatable {}

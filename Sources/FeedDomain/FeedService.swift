import SwitchboardCore

/// The feed: a long list of profiles in id order, read a page at a time.
///
/// Ids are dense (the n-th item has id n) and items are only ever appended, which is what lets a
/// page number map straight to an id range.
public protocol FeedService: Sendable {
    /// Up to `limit` items with ids greater than `afterID`, in id order.
    func items(after afterID: Int64, limit: Int) async throws -> [Profile]
    /// The same items with the feed's size and state, read together (one database read).
    func slice(after afterID: Int64, limit: Int) async throws -> FeedSlice
    func item(id: Int64) async throws -> Profile?
    /// How many items the feed holds.
    func count() async throws -> Int64
    /// The feed's change-tracking state.
    func state() async throws -> String
    /// What changed since `sinceState`, at most `limit` items.
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet
    /// Appends items (ids are assigned in order) and records them as created; the state is read in
    /// the same transaction (see ``Committed``).
    func append(_ profiles: [Profile]) async throws -> Committed<[Profile]>
}

/// Items of the feed read together with its size and state, so they agree.
public struct FeedSlice: Sendable {
    public var items: [Profile]
    public var total: Int64
    public var state: String

    public init(items: [Profile], total: Int64, state: String) {
        self.items = items
        self.total = total
        self.state = state
    }
}

/// The change-tracking domain name of the feed.
public let feedDomain = "feed"

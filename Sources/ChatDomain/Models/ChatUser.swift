/// A person one can chat with, as the user list shows them.
public struct ChatUser: Codable, Sendable, Equatable {
    /// Whether the user is around, as the list's dot shows it.
    public enum Presence: String, Codable, Sendable, CaseIterable {
        case online, away, offline
    }

    public var id: String
    public var login: String
    public var displayName: String
    public var avatarUrl: String
    public var presence: Presence

    public init(id: String, login: String, displayName: String, avatarUrl: String, presence: Presence) {
        self.id = id
        self.login = login
        self.displayName = displayName
        self.avatarUrl = avatarUrl
        self.presence = presence
    }
}

/// One record of the feed: a user profile as the paged profile API serves it.
public struct Profile: Codable, Sendable, Equatable {
    /// Position in the feed, 1-based and dense: the n-th item has id n.
    public var id: Int64
    public var accountId: Int64
    public var displayName: String
    public var reputation: Int64
    /// `registered`, `moderator`, `team_admin` or `unregistered`.
    public var userType: String
    public var badgeCounts: BadgeCounts
    public var profileImage: String?
    public var location: String?
    public var websiteUrl: String?

    public init(id: Int64, accountId: Int64, displayName: String, reputation: Int64, userType: String,
                badgeCounts: BadgeCounts, profileImage: String?, location: String?, websiteUrl: String?) {
        self.id = id
        self.accountId = accountId
        self.displayName = displayName
        self.reputation = reputation
        self.userType = userType
        self.badgeCounts = badgeCounts
        self.profileImage = profileImage
        self.location = location
        self.websiteUrl = websiteUrl
    }
}

public struct BadgeCounts: Codable, Sendable, Equatable {
    public var gold: Int64
    public var silver: Int64
    public var bronze: Int64

    public init(gold: Int64, silver: Int64, bronze: Int64) {
        self.gold = gold
        self.silver = silver
        self.bronze = bronze
    }
}

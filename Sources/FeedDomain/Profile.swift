import Jansson

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

    enum CodingKeys: String, CodingKey {
        case id, accountId, displayName, reputation, userType, badgeCounts, profileImage, location, websiteUrl
    }

    /// Every member is always present, `null` when unknown, so clients see one shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(accountId, forKey: .accountId)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(reputation, forKey: .reputation)
        try container.encode(userType, forKey: .userType)
        try container.encode(badgeCounts, forKey: .badgeCounts)
        try container.encode(profileImage, forKey: .profileImage)
        try container.encode(location, forKey: .location)
        try container.encode(websiteUrl, forKey: .websiteUrl)
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

/// A page of the feed builds its jansson objects directly: the members of ``encode(to:)``, in order.
extension Profile: JanssonEncodable {
    public func writeMembers(into object: JanssonObjectBuilder) throws {
        object.set("id", id)
        object.set("accountId", accountId)
        object.set("displayName", displayName)
        object.set("reputation", reputation)
        object.set("userType", userType)
        try object.set("badgeCounts", badgeCounts)
        object.set("profileImage", profileImage)
        object.set("location", location)
        object.set("websiteUrl", websiteUrl)
    }
}

extension BadgeCounts: JanssonEncodable {
    public func writeMembers(into object: JanssonObjectBuilder) throws {
        object.set("gold", gold)
        object.set("silver", silver)
        object.set("bronze", bronze)
    }
}

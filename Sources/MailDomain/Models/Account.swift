/// A mail account: what `mail.login` signs a connection into.
public struct Account: Codable, Sendable, Equatable {
    /// Lower-cased; the account's key.
    public var email: String
    public var name: String?

    public init(email: String, name: String? = nil) {
        self.email = email
        self.name = name
    }

    enum CodingKeys: String, CodingKey { case email, name }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(email, forKey: .email)
        try container.encode(name, forKey: .name)
    }
}

/// What signing in did: the account, and whether this login created it.
public struct LoginOutcome: Codable, Sendable, Equatable {
    public var account: Account
    public var created: Bool

    public init(account: Account, created: Bool) {
        self.account = account
        self.created = created
    }
}

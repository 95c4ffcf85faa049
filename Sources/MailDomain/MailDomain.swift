/// The change-tracking domain name of mail.
public let mailDomain = "mail"

/// The change-log scope of one account's mail: changes are recorded and reported per account.
func mailScope(_ account: String) -> String { "\(mailDomain)/\(account)" }

/// The change-tracking domain name of mail.
public let mailDomain = "mail"

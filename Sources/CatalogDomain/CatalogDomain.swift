/// The change-tracking domain name of the catalog.
public let catalogDomain = "catalog"

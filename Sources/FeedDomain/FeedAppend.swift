/// What appending to the feed stores, decided once for every backend: the profiles numbered on from
/// the feed's last id, in the order given; each is then recorded as `created` under ``changeID(_:)``.
enum FeedAppend {
    static func numbered(_ profiles: [Profile], after last: Int64) -> [Profile] {
        profiles.enumerated().map { offset, profile in
            var stored = profile
            stored.id = last + Int64(offset) + 1
            return stored
        }
    }

    /// The change-log item id of a feed item.
    static func changeID(_ profile: Profile) -> String { String(profile.id) }
}

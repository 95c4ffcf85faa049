import SwitchboardCore

/// The demo feed: profile `n` is a pure function of `n`, so the in-memory service needs no storage
/// and the SQLite seed is the same data, byte for byte, on every machine.
public enum DemoFeed {
    public static let defaultCount = 1_000_000

    public static func profile(_ id: Int64) -> Profile {
        var random = SplitMix64(seed: UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15)
        let first = firstNames[random.next(below: firstNames.count)]
        let last = lastNames[random.next(below: lastNames.count)]
        // Reputation is heavy-tailed, as on real sites: most small, a few large.
        let tier = random.next(below: 100)
        let reputation: Int64 = switch tier {
        case 0..<60: Int64(1 + random.next(below: 200))
        case 60..<90: Int64(200 + random.next(below: 5_000))
        case 90..<99: Int64(5_000 + random.next(below: 100_000))
        default: Int64(100_000 + random.next(below: 1_000_000))
        }
        let userType = tier == 99 && random.next(below: 4) == 0 ? "moderator" : (random.next(below: 50) == 0 ? "unregistered" : "registered")
        let scale = reputation / 1_000
        let badges = BadgeCounts(
            gold: Int64(random.next(below: Int(1 + scale / 20))),
            silver: Int64(random.next(below: Int(1 + scale / 4))),
            bronze: Int64(random.next(below: Int(2 + scale)))
        )
        let hasImage = random.next(below: 10) < 8
        let city = random.next(below: locations.count + 3)
        let hasSite = random.next(below: 4) == 0
        // A host name holds ASCII letters and digits only ("van Rossum", "Spärck Jones" have more).
        let letters = "\(first)\(last)".lowercased().unicodeScalars.filter { $0.isASCII && $0.properties.isAlphabetic }
        let handle = "\(String(String.UnicodeScalarView(letters)))\(id % 1000)"
        return Profile(
            id: id,
            accountId: 10_000_000 + id * 7 + Int64(random.next(below: 7)),
            displayName: "\(first) \(last)",
            reputation: reputation,
            userType: userType,
            badgeCounts: badges,
            profileImage: hasImage ? "https://images.example.org/avatars/\(id).png" : nil,
            location: city < locations.count ? locations[city] : nil,
            websiteUrl: hasSite ? "https://\(handle).example.net" : nil
        )
    }

    static let firstNames = ["Ada", "Alan", "Grace", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances", "Edsger",
                             "Radia", "Tim", "Hedy", "Guido", "Katherine", "Bjarne", "Sophie", "Yukihiro", "Anita", "Niklaus",
                             "Joan", "Donald", "Mary", "John", "Leslie", "Shafi", "Ivan", "Adele", "Brian", "Karen"]
    static let lastNames = ["Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Thompson", "Allen",
                            "Dijkstra", "Perlman", "Berners-Lee", "Lamarr", "van Rossum", "Johnson", "Stroustrup", "Wilson",
                            "Matsumoto", "Borg", "Wirth", "Clarke", "Knuth", "Keller", "McCarthy", "Lamport", "Goldwasser",
                            "Sutherland", "Goldberg", "Kernighan", "Spärck Jones"]
    static let locations = ["Lisbon, Portugal", "Nairobi, Kenya", "Montréal, Canada", "Kyoto, Japan", "São Paulo, Brazil",
                            "Berlin, Germany", "Pune, India", "Melbourne, Australia", "Austin, TX", "Reykjavík, Iceland",
                            "Cape Town, South Africa", "Seoul, South Korea", "Zürich, Switzerland", "Oaxaca, Mexico"]
}

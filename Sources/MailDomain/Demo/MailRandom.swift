/// SplitMix64 (Steele, Lea and Flood): a small seedable generator, so the demo mailbox is the same on
/// every machine. A copy of the feed's, kept here so the domains stay independent.
struct MailRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(max(bound, 1)))
    }

    /// True with probability `percent`/100.
    mutating func chance(_ percent: Int) -> Bool { next(below: 100) < percent }

    mutating func pick<T>(_ items: [T]) -> T { items[next(below: items.count)] }
}

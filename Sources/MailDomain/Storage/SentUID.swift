/// The uid of a sent message: `s1`, `s2`, …, the number after the account's `sent` counter, skipping
/// any uid the account already holds (an import may have taken it). Both SQL backends and memory
/// number alike:
///
/// ```swift
/// var sent = SentUID(counter: storedCounter)
/// while isStored(sent.uid) { sent.skip() }
/// // store `sent.uid`, then save `sent.number` as the counter
/// ```
struct SentUID: Sendable {
    private(set) var number: Int64

    init(counter: Int64) { number = counter + 1 }

    var uid: String { "s\(number)" }

    /// The uid is taken: the next one.
    mutating func skip() { number += 1 }
}

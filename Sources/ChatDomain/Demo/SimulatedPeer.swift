import SwitchboardCore

/// The other side of a direct room in memory: answers each message with a line of its own, picked
/// by a generator seeded from the room and the message's position, so the same session gives the
/// same conversation every run (with `--now`, to the millisecond).
enum SimulatedPeer {
    static let lines = [
        "Sounds good to me.", "Let me check and get back to you.", "Can we talk about it at standup?",
        "I pushed a fix, could you take a look?", "Ha, classic.", "Agreed — ship it.", "Which branch is that on?",
        "I'll be out for lunch, back in an hour.", "The build is green again.", "Do you have the numbers from yesterday?",
        "Good catch, thanks!", "Let's pair on it this afternoon.", "I left a few comments on the review.",
        "On it.", "That test is flaky, I think.", "Coffee first, then the release notes.",
    ]

    /// A line from the demo repertoire.
    static func phrase(_ generator: inout SplitMix64) -> String { generator.pick(lines) }

    /// The reply to the message at `position` in `roomId`.
    static func reply(roomId: String, position: Int64) -> String {
        var generator = SplitMix64(seed: fnv1a(roomId) ^ UInt64(bitPattern: position))
        return phrase(&generator)
    }

    /// The member of a direct room who answers `sender`; `nil` in a group room.
    static func peer(in room: ChatRoomRecord, answering sender: String) -> String? {
        guard room.kind == .direct else { return nil }
        return room.members.first { $0 != sender }
    }

    private static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01B3
        }
        return hash
    }
}

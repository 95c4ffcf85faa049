import SwitchboardCore

/// The demo chat both services start from: the signed-in user, a dozen colleagues, three direct
/// rooms and a group with some history, dated back from the clock. The same on every machine.
public enum DemoChat {
    /// The user the host acts for.
    public static let me = ChatUser(id: "u0", login: "demo", displayName: "Demo User",
                                    avatarUrl: avatar("demo"), presence: .online)

    /// How many messages the demo rooms hold.
    public static let messageCount = 36

    /// Every demo user, `me` first.
    public static let users: [ChatUser] = {
        let people = [
            ("ada", "Ada Lovelace"), ("grace", "Grace Hopper"), ("alan", "Alan Turing"), ("margaret", "Margaret Hamilton"),
            ("dennis", "Dennis Ritchie"), ("barbara", "Barbara Liskov"), ("ken", "Ken Thompson"), ("frances", "Frances Allen"),
            ("edsger", "Edsger Dijkstra"), ("radia", "Radia Perlman"), ("hedy", "Hedy Lamarr"), ("katherine", "Katherine Johnson"),
        ]
        var generator = SplitMix64(seed: 0xC4A7)
        let others = people.enumerated().map { index, person in
            ChatUser(id: "u\(index + 1)", login: person.0, displayName: person.1, avatarUrl: avatar(person.0),
                     presence: generator.pick(ChatUser.Presence.allCases))
        }
        return [me] + others
    }()

    static let rooms: [ChatRoomRecord] = [
        .direct("u0", "u1"), .direct("u0", "u2"), .direct("u0", "u3"),
        ChatRoomRecord(id: "grp-team", kind: .group, name: "Team", members: ["u0", "u1", "u2", "u4", "u5"]),
    ]

    /// The demo messages in storage order (positions 1, 2, …), one a few minutes after another up
    /// to `now`; and how far `me` has read each room (the last few messages of a room are unread).
    static func messages(now: Int64) -> (messages: [StoredChatMessage], readUpTo: [String: Int64]) {
        var generator = SplitMix64(seed: 0x5EED)
        var messages: [StoredChatMessage] = []
        var readUpTo: [String: Int64] = [:]
        for index in 0..<messageCount {
            let room = rooms[index % rooms.count]
            let sender = generator.chance(45) ? me.id : generator.pick(room.members.filter { $0 != me.id })
            let position = Int64(index + 1)
            messages.append(StoredChatMessage(
                position: position, logSequence: nil, roomId: room.id, senderId: sender,
                text: SimulatedPeer.phrase(&generator), clientMessageId: nil,
                sentAt: now - Int64(messageCount - index) * 7 * 60_000))
            // Everything but the newest two rounds is read.
            if index < messageCount - 2 * rooms.count { readUpTo[room.id] = position }
        }
        return (messages, readUpTo)
    }

    static func avatar(_ login: String) -> String { "https://avatars.switchboard.example/\(login).png" }
}

import ChatDomain
import SwitchboardCore
import Testing

/// `--simulate` at the service: each mode's failure, the same every run under a fixed clock.
@Suite("Chat's simulated failures", .timeLimit(.minutes(10)))
struct ChatSimulationTests {
    static func simulated(_ mode: ChatSimulation) -> SimulatedChatService {
        SimulatedChatService(InMemoryChatService(clock: ChatServiceTests.clock, peerReplies: false), mode: mode, clock: ChatServiceTests.clock)
    }

    @Test("rate-limit: every call throws rateLimited a minute after the clock; subscriptions still read")
    func rateLimit() async throws {
        let chat = Self.simulated(.rateLimit)
        let limited = ServiceError.rateLimited(resetAt: ChatServiceTests.clock.instant + 60_000, retryAfterMs: 60_000)
        await #expect(throws: limited) { try await chat.users(except: "u0", page: PageRequest()) }
        await #expect(throws: limited) { try await chat.send(sender: "u0", roomId: "grp-team", text: "x", clientMessageId: "a") }
        let state = try await chat.state()
        #expect(try await chat.messages(roomId: "grp-team", after: state, limit: 5).messages.isEmpty)
    }

    @Test("server-error: every call throws serviceFailure with a new debug id, the same sequence on every run")
    func serverError() async throws {
        func debugIDs() async -> [String] {
            let chat = Self.simulated(.serverError)
            var ids: [String] = []
            for _ in 1...3 {
                do {
                    _ = try await chat.rooms(user: "u0")
                } catch ServiceError.serviceFailure(let debugId, _) {
                    ids.append(debugId)
                } catch {
                    Issue.record("unexpected \(error)")
                }
            }
            return ids
        }
        let first = await debugIDs()
        #expect(Set(first).count == 3 && first.allSatisfy { $0.hasPrefix("sb-") })
        #expect(first == (await debugIDs()))
    }

    @Test("slow: a send waits until the next call, then is stored")
    func slow() async throws {
        let base = InMemoryChatService(clock: ChatServiceTests.clock, peerReplies: false)
        let chat = SimulatedChatService(base, mode: .slow, clock: ChatServiceTests.clock)
        let send = Task { try await chat.send(sender: "u0", roomId: "grp-team", text: "later", clientMessageId: "s") }
        await chat.untilSendHeld()
        #expect(try await base.sentMessage(sender: "u0", clientMessageId: "s") == nil, "held, not stored")
        _ = try await chat.rooms(user: "u0")
        let stored = try await send.value
        #expect(stored.value.state == .sent && stored.value.clientMessageId == "s")
        #expect(try await chat.sentMessage(sender: "u0", clientMessageId: "s") == stored.value)
    }

    @Test("slow: one chat request after a burst releases every send of it, also those the writer has not reached yet",
          .timeLimit(.minutes(1)))
    func slowBurst() async throws {
        let base = InMemoryChatService(clock: ChatServiceTests.clock, peerReplies: false)
        // Held for an hour unless released: a send the request did not release holds the test up.
        let chat = SimulatedChatService(base, mode: .slow, clock: ChatServiceTests.clock, hold: .seconds(3_600))
        let burst = (1...3).map { ChatSendRequest(sender: "u0", roomId: "grp-team", text: "m\($0)", clientMessageId: "b\($0)") }
        for send in burst {
            _ = try await chat.sendCheck(sender: send.sender, roomId: send.roomId, clientMessageId: send.clientMessageId)
        }
        // The writer stores them one after another, as the group commit does.
        let writer = Task { await chat.send(burst) }
        await chat.untilSendHeld()
        _ = try await chat.rooms(user: "u0")
        let stored = await writer.value
        #expect(try stored.map { try $0.get().value.text } == ["m1", "m2", "m3"])

        // A send checked after that request is held until the next one.
        _ = try await chat.sendCheck(sender: "u0", roomId: "grp-team", clientMessageId: "b4")
        let later = Task { try await chat.send(sender: "u0", roomId: "grp-team", text: "m4", clientMessageId: "b4") }
        await chat.untilSendHeld()
        #expect(try await base.sentMessage(sender: "u0", clientMessageId: "b4") == nil, "held, not stored")
        _ = try await chat.users(except: "u0", page: PageRequest())
        #expect(try await later.value.value.text == "m4")
    }
}

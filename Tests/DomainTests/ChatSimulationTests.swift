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
}

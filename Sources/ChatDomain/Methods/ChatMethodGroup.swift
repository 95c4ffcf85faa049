import DomainMethods
import JSONRPC

extension MethodRegistry {
    /// The chat methods, served by `chat` (opened on the first call when the backend opens it lazily),
    /// acting for `user` (the demo user by default); `subscriptions`, when given, serves `chat.subscribe`.
    public static func chatMethods(_ chat: LazyService<any ChatService>, user: String = DemoChat.me.id,
                                   subscriptions: SubscriptionHub? = nil) -> MethodRegistry {
        var registry = MethodRegistry()
        let sends = ChatSend.queue(for: chat), inFlight = ChatSendsInFlight()
        registry.registerDomain(ChatUsers.self) { params, _ in try await ChatUsers.run(params, chat: chat.get(), user: user) }
        registry.registerDomain(ChatRooms.self) { _, _ in try await ChatRooms.run(chat: chat.get(), user: user) }
        registry.registerDomain(ChatOpen.self) { params, _ in try await ChatOpen.run(params, chat: chat.get(), user: user) }
        registry.registerDomain(ChatHistory.self) { params, _ in try await ChatHistory.run(params, chat: chat.get(), user: user) }
        registry.registerDomain(ChatMarkRead.self) { params, _ in try await ChatMarkRead.run(params, chat: chat.get(), user: user) }
        registry.registerDomain(ChatSend.self) { params, context in try await ChatSend.run(params, chat: chat.get(), queue: sends, inFlight: inFlight, user: user, context: context) }
        registry.registerDomain(ChatChanges.self) { params, _ in try await ChatChanges.run(params, chat: chat.get()) }
        if let subscriptions {
            registry.registerSubscriptions(ChatSubscribe.self, ChatUnsubscribe.self, namespace: "chat", hub: subscriptions) { params, _ in
                try await ChatSubscribe.feed(params, chat: chat.get(), user: user)
            }
        }
        return registry
    }

    /// The chat methods, served by `chat`, open already.
    public static func chatMethods(_ chat: any ChatService, user: String = DemoChat.me.id,
                                   subscriptions: SubscriptionHub? = nil) -> MethodRegistry {
        chatMethods(LazyService(chat), user: user, subscriptions: subscriptions)
    }
}

import DomainMethods
import FeedDomain
import Jansson
import JSONRPC
import MailDomain
import MCPServerFace
import SwitchboardHost

/// The core domains' resources, each read through the domain's own method and followed by
/// `resources.subscribe` through the domain's change log.
enum CoreResources {
    static func all(services: DomainServices) -> [MethodResource] {
        let mail = services.mail
        let feed = services.feed
        let defaultAccount = services.defaultAccount
        let feedUpdates: @Sendable (String, RequestContext) -> any SubscriptionFeed = { uri, _ in
            ChangeHintFeed(method: HostPush.resourcesUpdated, params: ["uri": .string(uri)], state: { try await feed.get().state() },
                           changes: { since, limit in try await feed.get().changes(since: since, limit: limit) })
        }
        return [
            MethodResource(uri: "mail://inbox", name: "Inbox", description: "The inbox's first page of conversations (inbox.list).",
                           method: InboxList.self, updates: { uri, context in
                               ChangeHintFeed.mail(mail, account: try MailSession.account(context, default: defaultAccount),
                                                   method: HostPush.resourcesUpdated, params: ["uri": .string(uri)])
                           }),
            MethodResource(uri: "feed://items", name: "Feed", description: "The feed's first page (feed.list).", method: FeedList.self,
                           updates: feedUpdates),
            MethodResource(uri: "feed://item/{id}", name: "Feed item", description: "One feed item by id (feed.get).", method: FeedGet.self,
                           params: { variables in
                               guard let text = variables["id"], let id = Int64(text), id >= 0 else { return nil }
                               return ["id": .integer(id)]
                           }, updates: feedUpdates),
        ]
    }
}

import DomainMethods
import JSONRPC

extension MethodRegistry {
    /// The calendar's methods, served by `context.calendar`; `subscriptions`, when given, serves
    /// `calendar.subscribe`. The expansions of an agenda or a day share one ``ExpansionBudget``; writes do
    /// not take one, so what they store (an event's span) never depends on what else the request held.
    public static func calendarMethods(_ context: CalendarContext, subscriptions: SubscriptionHub? = nil) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.registerDomain(CalendarAgenda.self) { params, _ in try await ExpansionBudget.run { try await CalendarAgenda.run(params, context: context) } }
        registry.registerDomain(CalendarDay.self) { params, _ in try await ExpansionBudget.run { try await CalendarDay.run(params, context: context) } }
        registry.registerDomain(CalendarGet.self) { params, _ in try await CalendarGet.run(params, context: context) }
        registry.registerDomain(CalendarCreate.self) { params, _ in try await CalendarCreate.run(params, context: context) }
        registry.registerDomain(CalendarUpdate.self) { params, _ in try await CalendarUpdate.run(params, context: context) }
        registry.registerDomain(CalendarDelete.self) { params, _ in try await CalendarDelete.run(params, context: context) }
        registry.registerDomain(CalendarImport.self) { params, _ in try await CalendarImport.run(params, context: context) }
        registry.registerDomain(CalendarExport.self) { params, _ in try await CalendarExport.run(params, context: context) }
        registry.registerDomain(CalendarChanges.self) { params, _ in try await CalendarChanges.run(params, context: context) }
        if let subscriptions {
            let calendar = context.service
            registry.registerSubscriptions(CalendarSubscribe.self, CalendarUnsubscribe.self, namespace: "calendar", hub: subscriptions) { _, _ in
                ChangeHintFeed(method: "calendar.changed", state: { try await calendar.get().state() },
                               changes: { since, limit in try await calendar.get().changes(since: since, limit: limit) })
            }
        }
        return registry
    }
}

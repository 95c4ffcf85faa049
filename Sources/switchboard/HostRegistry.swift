import CalendarDomain
import CatalogDomain
import ChatDomain
import DomainMethods
import FeedDomain
import MailDomain
import MCPServerFace
import PluginHost
import JSONRPC
import SwitchboardCore
import SwitchboardHost

/// Every method the executable serves: the host's own, then each domain's.
enum HostRegistry {
    static func make(environment: HostEnvironment = HostEnvironment(), services: DomainServices, readRoots: ReadRoots = .empty,
                     plugins: PluginSupervisor = .none) -> MethodRegistry {
        var registry = MethodRegistry()
        var environment = environment
        environment.store = services.store
        if !plugins.plugins.isEmpty { environment.processLimits = { SandboxSettings.processLimits } }
        registry.add(.hostMethods(environment: environment))
        registry.add(.mailMethods(services.mail, defaultAccount: services.defaultAccount, clock: services.clock, readRoots: readRoots,
                                  subscriptions: services.subscriptions))
        registry.add(.feedMethods(services.feed))
        registry.add(.calendarMethods(CalendarContext(service: services.calendar, clock: services.clock,
                                                      defaultZone: services.timeZone, readRoots: readRoots),
                                      subscriptions: services.subscriptions))
        registry.add(.chatMethods(services.chat, user: services.chatUser, subscriptions: services.subscriptions))
        registry.add(.catalogMethods(services.catalog, readRoots: readRoots, subscriptions: services.subscriptions))
        if !plugins.plugins.isEmpty { services.subscriptions.listen(to: plugins.resourceUpdates.signal) }
        let resources = HostResources(catalog: ResourceCatalog(core: CoreResources.all(services: services), plugins: plugins),
                                      subscriptions: services.subscriptions)
        registry.add(.resourceMethods(resources))
        registry.add(.pluginMethods(plugins))
        registry.add(.promptMethods(plugins))
        registry.add(.mcpServerMethods(plugins: plugins, resources: resources))
        if !plugins.plugins.isEmpty { registry.route(to: plugins.router) }
        return registry
    }
}

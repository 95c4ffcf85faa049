import CalendarDomain
import FeedDomain
import MailDomain
import JSONRPC
import SwitchboardCore
import SwitchboardHost

/// Every method the executable serves: the host's own, then each domain's.
enum HostRegistry {
    static func make(environment: HostEnvironment = HostEnvironment(), services: LazyServices, readRoots: ReadRoots = .empty) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.add(.hostMethods(environment: environment))
        registry.add(.mailMethods(services.mail, defaultAccount: services.defaultAccount, clock: services.clock, readRoots: readRoots))
        registry.add(.feedMethods(services.feed))
        registry.add(.calendarMethods(CalendarContext(calendar: services.calendar, clock: services.clock,
                                                      defaultZone: services.timeZone, readRoots: readRoots)))
        return registry
    }
}

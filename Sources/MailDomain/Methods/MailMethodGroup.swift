import DomainMethods
import JSONRPC
import SwitchboardCore

extension MethodRegistry {
    /// The mail methods, served by `mail` (opened on the first call when the backend opens it lazily).
    /// Requests act for the account `mail.login` bound to their connection, else for `defaultAccount`
    /// (the executable passes `--account` or the demo account); with neither they fail with -32001.
    /// `clock` dates the prototype's "Today" in imports; `readRoots` are the folders `mail.import` may
    /// read files from (none by default); `subscriptions`, when given, serves `mail.subscribe`.
    public static func mailMethods(_ mail: LazyService<any MailService>, defaultAccount: String?, clock: any WallClock = SystemClock(),
                                   readRoots: ReadRoots = .empty, subscriptions: SubscriptionHub? = nil) -> MethodRegistry {
        let fallback = defaultAccount.map { EmailAddress.normalized($0) ?? $0 }
        let account: @Sendable (RequestContext) throws -> String = { try MailSession.account($0, default: fallback) }
        var registry = MethodRegistry()
        registry.registerDomain(MailLogin.self) { params, context in try await MailLogin.run(params, mail: mail.get(), context: context) }
        registry.registerDomain(MailFolders.self) { _, context in try await MailFolders.run(mail: mail.get(), account: account(context)) }
        registry.registerDomain(InboxList.self) { params, context in try await InboxList.run(params, mail: mail.get(), account: account(context)) }
        registry.registerDomain(MailThread.self) { params, context in try await MailThread.run(params, mail: mail.get(), account: account(context)) }
        registry.registerDomain(MailGet.self) { params, context in try await MailGet.run(params, mail: mail.get(), account: account(context)) }
        registry.registerDomain(MailSend.self) { params, context in try await MailSend.run(params, mail: mail.get(), account: account(context)) }
        registry.registerDomain(MailMarkRead.self) { params, context in try await MailMarkRead.run(params, mail: mail.get(), account: account(context)) }
        registry.registerDomain(MailMove.self) { params, context in try await MailMove.run(params, mail: mail.get(), account: account(context)) }
        registry.registerDomain(MailSearch.self) { params, context in try await MailSearch.run(params, mail: mail.get(), account: account(context)) }
        registry.registerDomain(MailImport.self) { params, context in
            try await MailImport.run(params, mail: mail.get(), account: account(context), clock: clock, roots: readRoots, context: context)
        }
        registry.registerDomain(MailChanges.self) { params, context in try await MailChanges.run(params, mail: mail.get(), account: account(context)) }
        if let subscriptions {
            registry.registerSubscriptions(MailSubscribe.self, MailUnsubscribe.self, namespace: "mail", hub: subscriptions) { _, context in
                ChangeHintFeed.mail(mail, account: try account(context))
            }
        }
        return registry
    }

    /// The mail methods, served by `mail`, open already.
    public static func mailMethods(_ mail: any MailService, defaultAccount: String?, clock: any WallClock = SystemClock(),
                                   readRoots: ReadRoots = .empty, subscriptions: SubscriptionHub? = nil) -> MethodRegistry {
        mailMethods(LazyService(mail), defaultAccount: defaultAccount, clock: clock, readRoots: readRoots, subscriptions: subscriptions)
    }
}

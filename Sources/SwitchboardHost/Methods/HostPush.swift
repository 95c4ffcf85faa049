/// The notifications the host pushes on its own about plugins and resources, by name: each name is
/// written here once, for the code that sends it and for the MCP dialect that rewords it, so a rename
/// reaches both (a notification's params are documented in Schemas/).
public enum HostPush {
    /// `host.methodsChanged {namespace}`: a plugin's tools appeared, changed or went.
    public static let methodsChanged = "host.methodsChanged"
    /// `resources.listChanged {namespace}`: a plugin's resources or templates changed.
    public static let resourcesListChanged = "resources.listChanged"
    /// `resources.updated {subscriptionId, uri}`: a subscribed resource changed.
    public static let resourcesUpdated = "resources.updated"
    /// `prompts.listChanged {namespace}`: a plugin's prompts changed.
    public static let promptsListChanged = "prompts.listChanged"

    /// The list changes: what a plugin's start announces (a one-shot call has no lists to refresh).
    public static let listChanges: Set<String> = [methodsChanged, resourcesListChanged, promptsListChanged]
}

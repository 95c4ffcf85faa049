import Jansson

/// How the peer failed a request of ours, before the connection's owner names it (``Connection``'s `peerError`).
public enum PeerFailure {
    /// The response's `error` member, as sent (valid during the call only).
    case error(JSONView?)
    /// A response the host cannot read (an integer beyond 64 bits, say): what and where.
    case unreadable(String)
}

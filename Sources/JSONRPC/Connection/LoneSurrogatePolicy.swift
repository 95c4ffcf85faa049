/// What a connection's reader does with a message jansson refused only for lone UTF-16 surrogate
/// escapes (`"\ud83d"`, ``LoneSurrogateEscapes``), which JSON's grammar allows but which stand for no
/// character.
public enum LoneSurrogatePolicy: Sendable {
    /// A client's message: nothing is stored with a character it did not send. The request is answered
    /// with its id, `-32602` naming the member when the escape lies in `params`, else `-32600`; in a
    /// batch only the element that holds it fails.
    case refuse
    /// A peer whose answers are read for what they can show (a plugin's): in a response, each lone
    /// escape is read as U+FFFD, as Go's encoding/json reads it, and `onReplaced` is told how many there
    /// were. The peer's requests and notifications are refused as under ``refuse``, so nothing it asks
    /// the host to store holds a character it did not send.
    case replace(onReplaced: @Sendable (_ count: Int) -> Void)
}

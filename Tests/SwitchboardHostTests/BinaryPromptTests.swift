#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A person at a terminal (issue 10, point 6): `switchboard` with a terminal on stdin opens the prompt.
/// Driven in tmux: keys in with send-keys, the screen read with capture-pane.
@Suite("The interactive prompt, in a terminal", .offCooperativePool)
struct BinaryPromptTests {
    static let fixed = ["--backend", "memory", "--now", "2026-01-01T09:00:00Z"]
    static let banner = "type a method and its params"

    @Test("a typed request is answered pretty-printed in colour, pushes show as they come, Tab completes, help lists, quit leaves, history is kept")
    func session() throws {
        let state = try ScratchFolder("prompt")
        let pane = try TmuxPane(arguments: Self.fixed, environment: ["XDG_STATE_HOME": state.path])
        try pane.waitFor(text: Self.banner)

        pane.type(#"inbox.list {"limit": 3}"#, then: "Enter")
        let answer = try pane.waitFor("three conversations") { $0.contains(#""hasMore": true"#) }
        #expect(answer.split(separator: "\n").filter { $0.contains(#""threadId": "#) }.count == 3)
        let coloured = pane.capture(escapes: true)
        #expect(coloured.contains("\u{1B}[34m\"hasMore\""), "member names in colour")

        pane.type(#"chat.subscribe {"roomId":"dm-u0-u1"}"#, then: "Enter")
        try pane.waitFor(text: #""subscriptionId": "chat-sub-1""#)
        pane.type("chat.send roomId=dm-u0-u1 text=hello clientMessageId=c1", then: "Enter")
        try pane.waitFor("the sent confirmation") { $0.contains("• chat.messageState") && $0.contains(#""state": "sent""#) }

        pane.type("inbox.li", then: "Tab")
        // capture-pane may drop trailing spaces: the one Tab added after the method may not show.
        try pane.waitFor("the completed method") { screen in
            screen.split(separator: "\n").last { $0.hasPrefix("switchboard>") }?.split(separator: " ") == ["switchboard>", "inbox.list"]
        }
        pane.type("l", then: "Tab")
        try pane.waitFor("the completed param") { $0.contains("switchboard> inbox.list limit=") }
        pane.type("1", then: "Enter")
        try pane.waitFor("the shorthand answer") { $0.split(separator: "\n").filter { $0.contains(#""hasMore": true"#) }.count == 2 }

        pane.type("help", then: "Enter")
        try pane.waitFor(text: "Lists a folder's conversations, newest activity first")
        pane.type("quit", then: "Enter")
        try pane.waitForExit()

        let history = state.read("switchboard/history") ?? ""
        #expect(history.contains("inbox.list"), "history: \(history)")
        #expect(history.contains("chat.send"), "history: \(history)")
    }

    @Test("history comes back in the next session (Up), and Ctrl-D leaves")
    func historyAcrossSessions() throws {
        let state = try ScratchFolder("prompt-history")
        let first = try TmuxPane(arguments: Self.fixed, environment: ["XDG_STATE_HOME": state.path])
        try first.waitFor(text: Self.banner)
        first.type("host.echo remembered=yes", then: "Enter")
        try first.waitFor(text: #""remembered": "yes""#)
        try Self.waitForEmptyPrompt(first)
        first.type("", then: "C-d")
        try first.waitForExit()

        let second = try TmuxPane(arguments: Self.fixed, environment: ["XDG_STATE_HOME": state.path])
        try second.waitFor(text: Self.banner)
        // The banner shows before the line editor has read the history and taken the terminal: Up pressed
        // then is lost. The empty prompt on screen says the editor is reading keys.
        try Self.waitForEmptyPrompt(second)
        second.type("", then: "Up")
        try second.waitFor(text: "switchboard> host.echo remembered=yes")
        second.type("", then: "C-u", "C-d")
        try second.waitForExit()
    }

    @Test("Ctrl-D with a request still running waits for it and shows its answer before leaving")
    func leaveWhileRunning() throws {
        let state = try ScratchFolder("prompt-leave")
        let pane = try TmuxPane(arguments: Self.fixed, environment: ["XDG_STATE_HOME": state.path], keepingScreen: true)
        try pane.waitFor(text: Self.banner)
        pane.type("host.sleep ms=1500", then: "Enter")
        try pane.waitFor("the prompt after the request") { screen in
            let lines = screen.split(separator: "\n").map { $0.trimmingSuffix(while: \.isWhitespace) }.filter { !$0.isEmpty }
            return lines.suffix(2) == ["switchboard> host.sleep ms=1500", "switchboard>"]
        }
        pane.type("", then: "C-d")
        try pane.waitForProgramExit()
        let screen = pane.capture()
        #expect(screen.contains(#""slept": 1500"#), "the answer of the request running at Ctrl-D: \(screen)")
    }

    /// Waits until the last line the pane shows is the prompt with nothing typed after it.
    static func waitForEmptyPrompt(_ pane: TmuxPane, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try pane.waitFor("the empty prompt", sourceLocation: sourceLocation) { screen in
            screen.split(separator: "\n").map { $0.trimmingSuffix(while: \.isWhitespace) }.last { !$0.isEmpty } == "switchboard>"
        }
    }

    @Test("NO_COLOR: answers and the prompt without colour codes")
    func noColour() throws {
        let state = try ScratchFolder("prompt-nocolor")
        let pane = try TmuxPane(arguments: Self.fixed, environment: ["XDG_STATE_HOME": state.path, "NO_COLOR": "1"], unset: [])
        try pane.waitFor(text: Self.banner)
        pane.type("host.echo a=1", then: "Enter")
        let screen = try pane.waitFor("the answer", escapes: true) { $0.contains(#""a": 1"#) }
        #expect(!screen.contains("\u{1B}["), "no escape codes: \(screen)")
        pane.type("quit", then: "Enter")
        try pane.waitForExit()
    }

    @Test("--raw at a terminal: no prompt, JSON-RPC typed in and answered as on a pipe")
    func raw() throws {
        let pane = try TmuxPane(arguments: ["serve", "--raw"] + Self.fixed, environment: [:])
        pane.type(#"{"jsonrpc":"2.0","id":1,"method":"host.ping"}"#, then: "Enter")
        let screen = try pane.waitFor("the raw answer") { $0.contains(#"{"jsonrpc":"2.0","id":1,"result":"pong"}"#) }
        #expect(!screen.contains(Self.banner))
        pane.type("", then: "C-d")
        try pane.waitForExit()
    }

    @Test("Ctrl-C cancels the request still running, then drops the line being typed, and never leaves; SIGTERM leaves")
    func interrupt() throws {
        let state = try ScratchFolder("prompt-interrupt")
        let pane = try TmuxPane(arguments: Self.fixed, environment: ["XDG_STATE_HOME": state.path])
        try pane.waitFor(text: Self.banner)

        pane.type("host.sleep ms=600000", then: "Enter")
        // The prompt comes back once the request is sent; it runs until cancelled.
        try pane.waitFor("the prompt after the request") { screen in
            let lines = screen.split(separator: "\n").map { $0.trimmingSuffix(while: \.isWhitespace) }.filter { !$0.isEmpty }
            return lines.suffix(2) == ["switchboard> host.sleep ms=600000", "switchboard>"]
        }
        pane.type("", then: "C-c")
        try pane.waitFor(text: "error -32800")

        // Ctrl-C flushes the terminal's input queue: it goes once the line shows as typed.
        pane.type("host.echo dropped=1")
        try pane.waitFor(text: "switchboard> host.echo dropped=1")
        pane.type("", then: "C-c")
        try pane.waitFor(text: "switchboard> host.echo dropped=1^C")
        pane.type("", then: "C-c")
        try pane.waitFor(text: "^C (quit or Ctrl-D leaves)")
        pane.type("host.echo kept=2", then: "Enter")
        let screen = try pane.waitFor("the kept line's answer") { $0.contains(#""kept": 2"#) }
        #expect(!screen.contains(#""dropped""#), "the dropped line was never sent: \(screen)")

        try pane.signalProgram(SIGTERM)
        try pane.waitForExit()
    }
}

private extension Substring {
    func trimmingSuffix(while drop: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, drop(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}

#!/usr/bin/env python3
"""A hostile MCP server for the host's tests: each tool misbehaves in its own way."""
import json
import os
import signal
import sys
import time


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tool(name, properties=None, required=()):
    return {"name": name, "description": f"probe {name}",
            "inputSchema": {"type": "object", "properties": properties or {}, "required": list(required)}}


TOOLS = [
    tool("echo", {"text": {"type": "string"}}, ["text"]),
    tool("crash", {"message": {"type": "string"}}),
    tool("hang"),
    tool("garbage", {"lines": {"type": "integer"}}),
    tool("chatter"),
    tool("picture"),
    tool("env"),
    tool("call", {"method": {"type": "string"}, "params": {"type": "object"}}, ["method"]),
    tool("progress"),
    tool("fail"),
    tool("grow"),
    tool("signals"),
    tool("huge"),
    tool("stubborn"),
    tool("touch"),
    tool("flood"),
    tool("storm", {"count": {"type": "integer"}}),
    tool("bloat"),
    tool("fan", {"count": {"type": "integer"}, "method": {"type": "string"}}, ["count", "method"]),
    tool("subscriptions"),
    tool("deaf", {"pings": {"type": "integer"}}),
    tool("cancellations"),
    tool("ignoreUnsubscribe"),
    # A pattern that backtracks exponentially on "aaa…a!": the host's check must stay bounded.
    tool("match", {"text": {"type": "string", "pattern": "(a+)+$"}}, ["text"]),
    # Declares an integer n and answers {"n": arguments.n}: a string breaks its own outputSchema.
    dict(tool("counted", {"n": {}}), outputSchema={"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}),
]
PROMPTS = [{"name": "greet", "description": "Greets someone.",
            "arguments": [{"name": "who", "required": True}, {"name": "tone", "required": False}]}]
COUNTER = "probe://counter"
# Resources beyond the counter, listed over several pages (resources/list follows nextCursor).
ITEMS = [f"probe://item/{number:02d}" for number in range(60)]
# URI templates, also over several pages (resources/templates/list follows nextCursor).
TEMPLATES = [f"probe://shelf/{number:02d}/{{book}}" for number in range(60)]
PAGE = 25
touches = 0
calls = 0
stubborn = False
subscribed = set()
# Request ids received, and notifications/cancelled for ids received before (after) or not yet (early).
received = set()
cancellations = {"early": 0, "after": 0}
ignore_unsubscribe = False
# Unanswered resources/unsubscribe requests: their cancellation is reported as an update of the counter.
ignored = set()


def text(value):
    return {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value}


def callback(method, params):
    global calls
    calls += 1
    ident = 1000 + calls
    request = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        request["params"] = params
    send(request)
    while True:
        message = json.loads(sys.stdin.readline())
        if message.get("id") == ident and "method" not in message:
            return message


def fan(count, method):
    """Sends `count` calls into the host at once, then answers the host's tool calls while it waits for
    theirs: the host must keep reading this plugin's answers however many of its calls wait."""
    global calls
    idents = list(range(1000 + calls + 1, 1000 + calls + 1 + count))
    calls += count
    sys.stdout.write("".join(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": {"text": "fan"}}) + "\n"
                             for ident in idents))
    sys.stdout.flush()
    pending, results, errors = set(idents), 0, {}
    while pending:
        message = json.loads(sys.stdin.readline())
        if message.get("method") == "tools/call" and message.get("id") is not None:
            arguments = message["params"].get("arguments") or {}
            send({"jsonrpc": "2.0", "id": message["id"], "result": text({"text": arguments.get("text")})})
        elif "method" not in message and message.get("id") in pending:
            pending.discard(message["id"])
            if "result" in message:
                results += 1
            else:
                code = str(message["error"]["code"])
                errors[code] = errors.get(code, 0) + 1
    return text({"results": results, "errors": errors})


def run(name, arguments, meta):
    if name in ("echo", "match"):
        return text({"text": arguments["text"]})
    if name == "crash":
        sys.stderr.write(arguments.get("message", "probe: crashing") + "\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "hang":
        # With a progress token it says it has the call first, so a test can act once it surely does.
        token = meta.get("progressToken")
        if token is not None:
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": 0, "message": "hanging"}})
        return None
    if name == "garbage":
        sys.stdout.write("this is not JSON-RPC\n" * arguments.get("lines", 101))
        sys.stdout.flush()
        return None
    if name == "chatter":
        # What real servers print now and then; the answer follows.
        sys.stdout.write("Server starting on stdio...\n")
        sys.stdout.flush()
        return text({"chatter": True})
    if name == "env":
        return text({"env": dict(os.environ)})
    if name == "call":
        return text({"answer": callback(arguments["method"], arguments.get("params"))})
    if name == "progress":
        token = meta.get("progressToken")
        if token is not None:
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": 1, "total": 2, "message": "halfway"}})
        return text({"token": token is not None})
    if name == "grow":
        TOOLS.append(tool("grown"))
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text({"tools": len(TOOLS)})
    if name == "grown":
        return text({"grown": True})
    if name == "signals":
        words = os.environ["PROBE_SIGNALS"].split()
        fields = {words[i].rstrip(":"): words[i + 1] for i in range(0, len(words) - 1, 2)}
        return text({"blocked": fields["SigBlk"], "ignored": fields["SigIgn"], "group": os.getpgrp() == os.getpid()})
    if name == "huge":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x" * 100000}})
        return None
    if name == "stubborn":
        # From now on SIGTERM is ignored and end of input does not end the probe: only SIGKILL does.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        global stubborn
        stubborn = True
        return text({"stubborn": True})
    if name == "touch":
        # Changes the probe's one resource and says so (MCP resource update).
        global touches
        touches += 1
        send({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": COUNTER}})
        return text({"touches": touches})
    if name == "flood":
        # Output without end: one line that never finishes, until the host stops the probe.
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
            sys.stdout.flush()
    if name == "bloat":
        # An answer far over a small --max-message-bytes.
        return text({"bloat": "x" * 100000})
    if name == "storm":
        # Many notifications, then the answer.
        token = meta.get("progressToken")
        count = arguments.get("count", 10000)
        for step in range(count):
            if token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": step, "total": count}})
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": step}})
        return text({"sent": count})
    if name == "fan":
        return fan(arguments["count"], arguments["method"])
    if name == "deaf":
        # From now on stdin is never read: `pings` requests into the host, then nothing, until killed.
        sys.stdout.write("".join(json.dumps({"jsonrpc": "2.0", "id": f"ping-{number}", "method": "ping"}) + "\n"
                                 for number in range(arguments.get("pings", 0))))
        sys.stdout.flush()
        while True:
            time.sleep(3600)
    if name == "cancellations":
        return text(cancellations)
    if name == "ignoreUnsubscribe":
        global ignore_unsubscribe
        ignore_unsubscribe = True
        return text({"ignoring": True})
    if name == "subscriptions":
        return text({"uris": sorted(subscribed)})
    if name == "picture":
        # Content blocks of every kind a tool may answer, no structuredContent.
        return {"content": [{"type": "text", "text": "a dot"},
                            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                            {"type": "resource_link", "uri": "probe://counter", "name": "counter"},
                            {"type": "resource", "resource": {"uri": "probe://item/01", "mimeType": "text/plain", "text": "one"}}]}
    if name == "counted":
        return {"content": [{"type": "text", "text": json.dumps({"n": arguments.get("n")})}], "structuredContent": {"n": arguments.get("n")}}
    if name == "fail":
        return {"content": [{"type": "text", "text": "probe failed on purpose"}], "isError": True}
    raise KeyError(name)


for line in sys.stdin:
    message = json.loads(line)
    method, ident, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method == "notifications/cancelled":
        cancelled = params.get("requestId")
        cancellations["after" if cancelled in received else "early"] += 1
        if cancelled in ignored:
            ignored.discard(cancelled)
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": COUNTER}})
    if ident is None or method is None:
        continue
    received.add(ident)
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18",
                  "capabilities": {"tools": {}, "resources": {"subscribe": True}, "prompts": {"listChanged": True}},
                  "serverInfo": {"name": "probe", "version": "0.1.0"}}
    elif method == "resources/list":
        start = int(params.get("cursor") or 0)
        every = [{"uri": COUNTER, "name": "counter", "mimeType": "application/json"}] + [{"uri": uri, "name": uri} for uri in ITEMS]
        result = {"resources": every[start:start + PAGE]}
        if start + PAGE < len(every):
            result["nextCursor"] = str(start + PAGE)
    elif method == "resources/templates/list":
        start = int(params.get("cursor") or 0)
        result = {"resourceTemplates": [{"uriTemplate": uri, "name": uri} for uri in TEMPLATES[start:start + PAGE]]}
        if start + PAGE < len(TEMPLATES):
            result["nextCursor"] = str(start + PAGE)
    elif method == "resources/read":
        result = {"contents": [{"uri": COUNTER, "mimeType": "application/json", "text": json.dumps({"touches": touches})}]}
    elif method == "resources/subscribe":
        subscribed.add(params["uri"])
        result = {}
    elif method == "resources/unsubscribe":
        if ignore_unsubscribe:
            ignored.add(ident)
            continue
        subscribed.discard(params["uri"])
        result = {}
    elif method == "prompts/list":
        result = {"prompts": PROMPTS}
    elif method == "prompts/get":
        who = (params.get("arguments") or {}).get("who", "nobody")
        result = {"description": "a greeting", "messages": [{"role": "user", "content": {"type": "text", "text": f"Greet {who}."}}]}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = run(params["name"], params.get("arguments") or {}, params.get("_meta") or {})
        if result is None:
            continue
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}})
        continue
    send({"jsonrpc": "2.0", "id": ident, "result": result})

while stubborn:
    time.sleep(3600)

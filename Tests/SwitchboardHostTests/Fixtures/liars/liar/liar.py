"""An MCP server whose answers are what the call asks for, written as raw text: a test writes the hostile
answer it wants (`liar.say {members}`: the members after `"id":N,`), so every malformed answer is one call."""
import json
import os
import signal
import sys

out = sys.stdout.buffer


def raw(text):
    out.write(text.encode() + b"\n")
    out.flush()


def send(message):
    raw(json.dumps(message))


def reply(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


ANY = {"type": "object"}
TOOLS = [{"name": name, "inputSchema": ANY} for name in ("say", "closeStdin", "listChanged", "listings", "stderr", "callBack", "ok")]
listings = 0
BAD_READS = {"array": "[1]", "string": '"hello"', "contentsNotArray": '{"contents": 5}'}


def handle(message):
    method, params = message.get("method"), message.get("params") or {}
    if "id" not in message or method is None:
        return
    if method == "initialize":
        reply(message, {"protocolVersion": "2025-06-18", "serverInfo": {"name": "liar", "version": "1"},
                        "capabilities": {"tools": {"listChanged": True}, "resources": {}, "prompts": {}}})
    elif method == "tools/list":
        global listings
        listings += 1
        reply(message, {"tools": TOOLS})
    elif method == "resources/list":
        reply(message, {"resources": []})
    elif method == "resources/templates/list":
        reply(message, {"resourceTemplates": [{"uriTemplate": "liar://bad/{kind}", "name": "bad"}]})
    elif method == "resources/read":
        raw('{"jsonrpc":"2.0","id":%d,"result":%s}' % (message["id"], BAD_READS[params["uri"].rsplit("/", 1)[1]]))
    elif method == "prompts/list":
        reply(message, {"prompts": [{"name": "say", "arguments": [{"name": "members", "required": True}]}]})
    elif method == "prompts/get":
        raw('{"jsonrpc":"2.0","id":%d,%s}' % (message["id"], params["arguments"]["members"]))
    elif method == "tools/call":
        name, arguments = params["name"], params.get("arguments") or {}
        if name == "say":
            raw('{"jsonrpc":"2.0","id":%d,%s}' % (message["id"], arguments["members"]))
        elif name == "closeStdin":
            os.close(0)
            reply(message, {"content": [{"type": "text", "text": "closed"}]})
            while True:
                signal.pause()
        elif name == "listChanged":
            # n notifications with no change, then (with "add") a new tool and one more.
            for _ in range(arguments.get("n", 1)):
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            if "add" in arguments:
                TOOLS.append({"name": arguments["add"], "inputSchema": ANY})
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            reply(message, {"content": [{"type": "text", "text": "sent"}]})
        elif name == "stderr":
            sys.stderr.write(arguments["text"] + "\n")
            sys.stderr.flush()
            reply(message, {"content": []})
        elif name == "callBack":
            send({"jsonrpc": "2.0", "id": "cb", "method": arguments["method"], "params": {}})
            reply(message, {"content": []})
        elif name == "listings":
            reply(message, {"content": [], "structuredContent": {"listings": listings}})
        else:
            reply(message, {"content": [{"type": "text", "text": "ok"}]})
    else:
        send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no " + method}})


for line in sys.stdin.buffer:
    handle(json.loads(line))

"""An MCP server whose listings page badly: resources/list's nextCursor loops (A, B, A, ...) and repeats
items; tools/list repeats a tool; prompts/list has PROMPT_PAGES one-prompt pages; resources/templates/list
has TEMPLATES templates on one page."""
import json
import sys

PROMPT_PAGES = 1500
TEMPLATES = 12000
ANY = {"type": "object"}


def reply(request, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}) + "\n")
    sys.stdout.flush()


def page(method, cursor):
    if method == "tools/list":
        if cursor is None:
            return {"tools": [{"name": "echo", "inputSchema": ANY}, {"name": "echo", "inputSchema": ANY}], "nextCursor": "2"}
        return {"tools": [{"name": "echo", "description": "again", "inputSchema": ANY}, {"name": "other", "inputSchema": ANY}]}
    if method == "resources/list":
        uri = {None: "pager://r0", "A": "pager://r1", "B": "pager://r2"}[cursor]
        return {"resources": [{"uri": uri, "name": uri}, {"uri": "pager://r0", "name": "again"}], "nextCursor": "B" if cursor == "A" else "A"}
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"uriTemplate": "pager://t%d/{x}" % n, "name": "t%d" % n} for n in range(TEMPLATES)]}
    if method == "prompts/list":
        n = int(cursor or 0)
        result = {"prompts": [{"name": "p%d" % n}]}
        if n + 1 < PROMPT_PAGES:
            result["nextCursor"] = str(n + 1)
        return result
    return None


for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    if "id" not in message or method is None:
        continue
    if method == "initialize":
        reply(message, {"protocolVersion": "2025-06-18", "serverInfo": {"name": "pager", "version": "1"},
                        "capabilities": {"tools": {}, "resources": {}, "prompts": {}}})
    elif method == "tools/call":
        reply(message, {"content": [{"type": "text", "text": "ok"}]})
    else:
        reply(message, page(method, (message.get("params") or {}).get("cursor")))

#!/usr/bin/env python3
"""An MCP server for the sandbox tests: each tool tries one thing and says what happened (an errno name)."""
import errno
import json
import os
import socket
import sys
import urllib.error
import urllib.request


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tool(name, properties):
    return {"name": name, "description": f"jail {name}",
            "inputSchema": {"type": "object", "properties": properties, "required": list(properties)}}


TOOLS = [
    tool("read", {"path": {"type": "string"}}),
    tool("write", {"path": {"type": "string"}, "text": {"type": "string"}}),
    tool("connect", {"host": {"type": "string"}, "port": {"type": "integer"}}),
    tool("fork", {"count": {"type": "integer"}}),
    tool("allocate", {"mb": {"type": "integer"}}),
    tool("env", {}),
    tool("fetch", {"url": {"type": "string"}}),
    tool("flood", {"count": {"type": "integer"}, "target": {"type": "string"}}),
    tool("bomb", {"count": {"type": "integer"}, "stay": {"type": "boolean"}}),
    tool("release", {}),
]

HELD = {"children": [], "pipe": None}


def bomb(count, stay):
    """Forks up to `count` children that stay until `release` (each blocks reading a pipe only we write to); with
    `stay` they keep the pipe's write end too, so they outlive this process."""
    if HELD["pipe"] is None:
        HELD["pipe"] = os.pipe()
    failure = None
    for _ in range(count):
        try:
            pid = os.fork()
        except OSError as error:
            failure = errno.errorcode.get(error.errno, str(error.errno))
            break
        if pid == 0:
            if not stay:
                os.close(HELD["pipe"][1])
            try:
                os.read(HELD["pipe"][0], 1)
            finally:
                os._exit(0)
        HELD["children"].append(pid)
    return {"ok": failure is None, "forked": len(HELD["children"]), "error": failure}


def release():
    """Lets the held children end (their pipe closes) and reaps them."""
    if HELD["pipe"] is not None:
        os.close(HELD["pipe"][1])
        os.close(HELD["pipe"][0])
        HELD["pipe"] = None
    released = len(HELD["children"])
    for pid in HELD["children"]:
        os.waitpid(pid, 0)
    HELD["children"] = []
    return {"ok": True, "released": released}


def flood(count, target):
    """Opens `count` connections to the proxy at once, asks each for CONNECT `target`, and counts the answers."""
    address = os.environ["HTTP_PROXY"].rsplit("/", 1)[-1].rsplit(":", 1)
    connections = [socket.create_connection((address[0], int(address[1])), timeout=30) for _ in range(count)]
    statuses, refusal = {}, None
    try:
        for connection in connections:
            try:
                connection.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
            except OSError:
                pass  # a refused connection may be closed already; its answer is read below
        for connection in connections:
            answer = b""
            try:
                while b"\r\n\r\n" not in answer or (not answer.startswith(b"HTTP/1.1 200") and b"\n" not in answer.split(b"\r\n\r\n", 1)[1]):
                    chunk = connection.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
            except OSError:
                pass
            status = answer.split(b" ", 2)[1].decode() if answer.count(b" ") >= 2 else "none"
            statuses[status] = statuses.get(status, 0) + 1
            if status != "200" and refusal is None:
                refusal = answer.split(b"\r\n\r\n", 1)[-1].decode(errors="replace")
    finally:
        for connection in connections:
            connection.close()
    return {"ok": True, "statuses": statuses, "refusal": refusal}


def outcome(error):
    """{"ok": false, "error": "EACCES"} for an OSError, else the exception's class name."""
    if isinstance(error, OSError) and error.errno is not None:
        return {"ok": False, "error": errno.errorcode.get(error.errno, str(error.errno))}
    return {"ok": False, "error": type(error).__name__}


def run(name, args):
    try:
        if name == "read":
            with open(args["path"], encoding="utf-8") as handle:
                return {"ok": True, "text": handle.read(200)}
        if name == "write":
            with open(args["path"], "w", encoding="utf-8") as handle:
                handle.write(args["text"])
            return {"ok": True}
        if name == "connect":
            with socket.create_connection((args["host"], args["port"]), timeout=10) as connection:
                connection.sendall(b"hello from jail\n")
            return {"ok": True}
        if name == "fork":
            # Forks up to `count` children at once, then lets them end.
            forked = bomb(args["count"], False)
            release()
            return forked
        if name == "bomb":
            return bomb(args["count"], args["stay"])
        if name == "release":
            return release()
        if name == "allocate":
            block = bytearray(args["mb"] * 1024 * 1024)
            return {"ok": True, "bytes": len(block)}
        if name == "fetch":
            # Through HTTP_PROXY / HTTPS_PROXY when the host set them, as any urllib client.
            try:
                with urllib.request.urlopen(args["url"], timeout=30) as response:
                    return {"ok": True, "status": response.status, "text": response.read(200).decode()}
            except urllib.error.HTTPError as error:
                return {"ok": False, "error": f"HTTP {error.code}", "text": error.read(200).decode(errors="replace")}
            except urllib.error.URLError as error:
                return outcome(error.reason if isinstance(error.reason, OSError) else OSError(str(error.reason)))
        if name == "flood":
            return flood(args["count"], args["target"])
        if name == "env":
            namespaces = {kind: os.readlink(f"/proc/self/ns/{kind}") for kind in ("net", "user")}
            return {"ok": True, "env": {key: os.environ.get(key) for key in ("HOME", "TMPDIR", "XDG_DATA_HOME", "XDG_CACHE_HOME")},
                    "namespaces": namespaces}
    except (OSError, MemoryError) as error:
        return outcome(error)
    return {"ok": False, "error": "unknown tool"}


for line in sys.stdin:
    message = json.loads(line)
    ident, method = message.get("id"), message.get("method")
    if ident is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "jail", "version": "0.1.0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        value = run(message["params"]["name"], message["params"].get("arguments", {}))
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no such method"}})

#!/usr/bin/env python3
"""An editor-style client: LSP framing (Content-Length headers), the initialize handshake, progress
notifications, cancellation, and a clean shutdown/exit — what Emacs jsonrpc.el or Neovim's vim.lsp.rpc do.

    python3 examples/lsp_client.py [path/to/switchboard]
"""
import json
import os
import subprocess
import sys

binary = sys.argv[1] if len(sys.argv) > 1 else "switchboard"
host = subprocess.Popen([binary, "--backend", "memory"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def send(message):
    body = json.dumps(message).encode()
    host.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    host.stdin.flush()


def receive():
    length = None
    while True:
        line = host.stdout.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(host.stdout.read(length))


send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": os.getpid(), "clientInfo": {"name": "example"}}})
server = receive()["result"]
print("server:", server["serverInfo"], "framing:", server["capabilities"]["framing"])
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

# A slow request that reports progress; cancel it after the first report.
send({"jsonrpc": "2.0", "id": 2, "method": "host.sleep", "params": {"ms": 5000, "steps": 50, "_meta": {"progressToken": "p1"}}})
while True:
    message = receive()
    if message.get("method") == "$/progress":
        print("progress:", message["params"]["value"])
        send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}})
    elif message.get("id") == 2:
        print("request 2 answered:", message["error"]["code"], message["error"]["message"])
        break

send({"jsonrpc": "2.0", "id": 3, "method": "inbox.list", "params": {"limit": 1}})
print("inbox:", receive()["result"]["items"][0]["subject"])

send({"jsonrpc": "2.0", "id": 4, "method": "shutdown"})
print("shutdown:", receive()["result"])
send({"jsonrpc": "2.0", "method": "exit"})
print("exit status:", host.wait())

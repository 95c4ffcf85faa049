"""Writes the leak check's mixed workload to stdout in the given framing (ndjson or lsp).

Every kind of message the host handles: pings, echoes of awkward data, each JSON-RPC error, batches,
oversized messages, a slow request with progress, a cancellation, introspection, and the lifecycle.
"""
import json
import sys

framing = sys.argv[1]
messages = []

def add(obj_or_text):
    messages.append(obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text, ensure_ascii=False))

for i in range(200):
    add({"jsonrpc": "2.0", "id": i, "method": "host.ping"})
    add({"jsonrpc": "2.0", "id": f"e{i}", "method": "host.echo",
         "params": {"z": i, "big": 2**63 - 1, "real": 0.1 * i, "nul": "a\u0000b", "emoji": "😀", "list": [1, [2, [3]]]}})
add({"jsonrpc": "2.0", "id": 1.5, "method": "host.echo", "params": [1, "two", None, True]})
add('{"jsonrpc":"2.0","id":2,"method":"host.ping"')                      # parse error
add('{"jsonrpc":"2.0","method":1,"params":"bar"}')                        # invalid request
add({"jsonrpc": "2.0", "id": 3, "method": "no.such"})                     # method not found
add({"jsonrpc": "2.0", "id": 4, "method": "host.sleep", "params": {"ms": "ten"}})  # invalid params
add("[]")
add("[1,2,3]")
add(json.dumps([{"jsonrpc": "2.0", "id": 10 + k, "method": "host.ping"} for k in range(20)]
               + [{"jsonrpc": "2.0", "method": "host.ping"}, 7]))
add(json.dumps([{"jsonrpc": "2.0", "method": "host.ping"}] * 3))          # all notifications
add(json.dumps([{"jsonrpc": "2.0", "id": k, "method": "host.ping"} for k in range(60)]))  # over --max-batch
add(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "host.echo", "params": {"pad": "x" * 5000}}))  # oversized
add("[" * 200 + "]" * 200)                                                # too deep
add({"jsonrpc": "2.0", "id": 6, "method": "host.sleep",
     "params": {"ms": 20, "steps": 4, "_meta": {"progressToken": "p"}}})
add({"jsonrpc": "2.0", "id": 7, "method": "host.sleep", "params": {"ms": 60000}})
add({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 7}})
add({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {"clientInfo": {"name": "leak-check"}}})
add({"jsonrpc": "2.0", "method": "initialized", "params": {}})
add({"jsonrpc": "2.0", "id": 9, "method": "host.methods"})
add({"jsonrpc": "2.0", "id": 10, "method": "rpc.discover"})
add({"jsonrpc": "2.0", "id": 11, "method": "host.status"})
add({"jsonrpc": "2.0", "id": 12, "result": 1})                            # a response to nothing
add({"jsonrpc": "2.0", "id": 13, "method": "shutdown"})
add({"jsonrpc": "2.0", "id": 14, "method": "host.ping"})                  # refused after shutdown

out = sys.stdout.buffer
for text in messages:
    body = text.encode("utf-8")
    if framing == "lsp":
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    else:
        out.write(body + b"\n")

"""Drives the leak check's workload through a host started by the command after `--`.

  python3 scripts/leak-workload.py --framing ndjson|lsp --import-dir DIR [--out FILE] -- COMMAND...

Every kind of message the host handles, in two phases:
- host core, written at once: pings, echoes of awkward data, each JSON-RPC error, batches,
  oversized and too deep messages, a slow request with progress, a cancellation, introspection;
- the domains on SQLite, each request sent when the answer it needs has come (cursors, states,
  uids): inbox.list / mail.thread / mail.get / mail.search / mail.folders with their cursors,
  feed.list / feed.page / feed.get / feed.changes, mail.send / mail.markRead / mail.move /
  mail.changes, mail.subscribe / chat.subscribe with chat.send pushes, mail.import of a small file in DIR (twice: the second adds nothing) and inline,
  domain errors, batches of domain calls (run as tasks), a pipelined burst, and cancellations of
  running tasks, alone and inside a batch;
then the lifecycle: shutdown, a request refused after it, end of input.

Exits non-zero (naming what) unless every answer expected came, and the host exited 0, so a leak
check over it is never vacuous. DIR is the host's working directory, so the import file is inside
its default allowed roots (the current directory) whether or not `--allow-read` exists.
"""
import argparse
import json
import os
import queue
import subprocess
import sys
import threading

parser = argparse.ArgumentParser()
parser.add_argument("--framing", choices=["ndjson", "lsp"], required=True)
parser.add_argument("--import-dir", required=True)
parser.add_argument("--out", help="write every message the host sent here, one JSON text per line")
parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for any one answer")
parser.add_argument("command", nargs=argparse.REMAINDER)
args = parser.parse_args()
command = args.command[1:] if args.command[:1] == ["--"] else args.command
if not command:
    sys.exit("leak-workload: no host command after --")

failures = []


def fail(text):
    failures.append(text)
    print(f"leak-workload: {text}", file=sys.stderr)


host = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=args.import_dir)
incoming = queue.Queue()
received = []


def read_frames():
    """Splits the host's stdout into messages (either framing) and queues them; None at EOF."""
    stream = host.stdout
    while True:
        if args.framing == "lsp":
            length = None
            while True:
                line = stream.readline()
                if not line:
                    incoming.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = stream.read(length or 0)
        else:
            body = stream.readline()
            if not body:
                incoming.put(None)
                return
        message = json.loads(body)
        received.append(message)
        incoming.put(message)


threading.Thread(target=read_frames, daemon=True).start()


def write(text):
    body = text.encode("utf-8")
    frame = b"Content-Length: %d\r\n\r\n" % len(body) + body if args.framing == "lsp" else body + b"\n"
    host.stdin.write(frame)
    host.stdin.flush()


def send(obj_or_text):
    write(obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text, ensure_ascii=False))


answers = {}


def answer(request_id):
    """Waits for the answer to `request_id` (other messages are kept for later)."""
    key = json.dumps(request_id)
    while key not in answers:
        try:
            message = incoming.get(timeout=args.timeout)
        except queue.Empty:
            raise SystemExit(f"leak-workload: no answer to {key} within {args.timeout} s")
        if message is None:
            raise SystemExit(f"leak-workload: the host closed stdout before answering {key}")
        items = message if isinstance(message, list) else [message]
        for item in items:
            if isinstance(item, dict) and "method" not in item and "id" in item:
                answers.setdefault(json.dumps(item["id"]), item)
    return answers[key]


next_id = [1000]


def call(method, params=None, expect="result"):
    """Sends a request, waits for its answer, and checks that it is a result (or an error)."""
    next_id[0] += 1
    request = {"jsonrpc": "2.0", "id": next_id[0], "method": method}
    if params is not None:
        request["params"] = params
    send(request)
    reply = answer(next_id[0])
    if expect not in reply:
        fail(f"{method} {json.dumps(params)[:200]}: expected a {expect}, got {json.dumps(reply)[:300]}")
    return reply.get("result") or {}


# Phase 1: the host core, written at once.
for i in range(200):
    send({"jsonrpc": "2.0", "id": i, "method": "host.ping"})
    send({"jsonrpc": "2.0", "id": f"e{i}", "method": "host.echo",
          "params": {"z": i, "big": 2**63 - 1, "real": 0.1 * i, "nul": "a\u0000b", "emoji": "😀", "list": [1, [2, [3]]]}})
send({"jsonrpc": "2.0", "id": 1.5, "method": "host.echo", "params": [1, "two", None, True]})
send('{"jsonrpc":"2.0","id":2,"method":"host.ping"')                      # parse error
send('{"jsonrpc":"2.0","method":1,"params":"bar"}')                        # invalid request
send({"jsonrpc": "2.0", "id": 3, "method": "no.such"})                     # method not found
send({"jsonrpc": "2.0", "id": 4, "method": "host.sleep", "params": {"ms": "ten"}})  # invalid params
send("[]")
send("[1,2,3]")
send(json.dumps([{"jsonrpc": "2.0", "id": 10 + k, "method": "host.ping"} for k in range(20)]
                + [{"jsonrpc": "2.0", "method": "host.ping"}, 7]))
send(json.dumps([{"jsonrpc": "2.0", "method": "host.ping"}] * 3))          # all notifications
send(json.dumps([{"jsonrpc": "2.0", "id": k, "method": "host.ping"} for k in range(60)]))  # over --max-batch
send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "host.echo", "params": {"pad": "x" * 5000}}))  # oversized
send("[" * 200 + "]" * 200)                                                # too deep
send({"jsonrpc": "2.0", "id": 6, "method": "host.sleep",
      "params": {"ms": 20, "steps": 4, "_meta": {"progressToken": "p"}}})
send({"jsonrpc": "2.0", "id": "slow", "method": "host.sleep", "params": {"ms": 60000}})
send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "slow"}})
send({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {"clientInfo": {"name": "leak-check"}}})
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
send({"jsonrpc": "2.0", "id": 9, "method": "host.methods"})
send({"jsonrpc": "2.0", "id": 10, "method": "rpc.discover"})
send({"jsonrpc": "2.0", "id": 11, "method": "host.status"})
send({"jsonrpc": "2.0", "id": 12, "result": 1})                            # a response to nothing
if (answer("slow").get("error") or {}).get("code") != -32800:
    fail(f"the cancelled host.sleep was not answered -32800: {answer('slow')}")
if answer(199).get("result") != "pong":
    fail("ping 199 was not answered pong")

# Phase 2: the domains (the first call opens, migrates and seeds the database).
page = call("inbox.list", {"limit": 5})
state = page.get("state")
if page.get("nextCursor"):
    call("inbox.list", {"cursor": page["nextCursor"], "limit": 5})
call("inbox.list", {"folder": "Sent", "limit": 10})
call("inbox.list", {"unreadOnly": True})
call("inbox.list", {"cursor": "bogus"}, expect="error")
call("mail.folders")
conversations = page.get("items") or [{}]
thread_id = conversations[0].get("threadId", "m000001")
uid = (conversations[0].get("latest") or {}).get("uid", "m000001")
call("mail.thread", {"threadId": thread_id})
call("mail.thread", {"threadId": "nope"}, expect="error")
call("mail.get", {"uid": uid})
call("mail.get", {"uid": "m999999"}, expect="error")
hits = call("mail.search", {"query": "the review", "limit": 3})
if hits.get("nextCursor"):
    call("mail.search", {"query": "the review", "cursor": hits["nextCursor"], "limit": 3})
call("mail.search", {"query": 'NEAR AND * "quoted" café'})

feed = call("feed.list", {"limit": 50})
if feed.get("nextCursor"):
    call("feed.list", {"cursor": feed["nextCursor"], "limit": 50})
call("feed.page", {"page": 3, "pageSize": 20})
call("feed.get", {"id": 7})
call("feed.get", {"id": 10**9}, expect="error")
call("feed.changes", {"sinceState": feed.get("state", "0")})

sent = []
for k in range(5):
    message = call("mail.send", {"to": ["ada@example.com", "alan@example.org"], "cc": "grace@example.net",
                                 "subject": f"Re: leak check {k}", "text": "Answer " * 40, "inReplyTo": uid})
    sent.append((message.get("message") or {}).get("uid", "s0"))
call("mail.send", {"to": "not an address", "subject": "x", "text": "y"}, expect="error")
call("mail.markRead", {"uids": [uid] + sent, "read": True})
call("mail.markRead", {"uids": ["m999999"], "read": True}, expect="error")
call("mail.move", {"uids": sent[:2], "folder": "Archive"})
call("mail.changes", {"sinceState": state or "0", "maxChanges": 2})
call("mail.changes", {"sinceState": state or "0"})

# Push: subscriptions woken by this process's writes, chat sends followed by chat.messageState, a
# duplicate send, one subscription ended by unsubscribe and the others by the end of the connection.
mail_subscribed = call("mail.subscribe")
mail_subscription = mail_subscribed.get("subscriptionId")
chat_subscription = call("chat.subscribe", {"roomId": "dm-u0-u1"}).get("subscriptionId")
for k in range(5):
    call("chat.send", {"roomId": "dm-u0-u1", "text": f"leak check {k}", "clientMessageId": f"leak-{k}"})
call("chat.send", {"roomId": "dm-u0-u1", "text": "leak check 0", "clientMessageId": "leak-0"})
call("mail.send", {"to": "ada@example.com", "subject": "pushed", "text": "t"})


def pushed(predicate, what):
    """Waits until the host has sent a notification matching `predicate` (answers are kept); on a time-out
    says what did come, and what the change log holds for the mail subscription, before it gives up."""
    while not any(isinstance(m, dict) and predicate(m) for m in received):
        try:
            message = incoming.get(timeout=args.timeout)
        except queue.Empty:
            pushes = [(m.get("method"), (m.get("params") or {}).get("subscriptionId")) for m in received
                      if isinstance(m, dict) and "method" in m]
            print(f"leak-workload: no {what} within {args.timeout} s; notifications received: {pushes[-40:]}", file=sys.stderr)
            send({"jsonrpc": "2.0", "id": "diag", "method": "mail.changes", "params": {"sinceState": mail_subscribed.get("state")}})
            try:
                print(f"leak-workload: mail.changes since the subscription's state: {json.dumps(answer('diag'))[:600]}", file=sys.stderr)
            except SystemExit as reason:
                print(f"leak-workload: mail.changes got no answer either: {reason}", file=sys.stderr)
            raise SystemExit(f"leak-workload: no {what} within {args.timeout} s")
        if message is None:
            raise SystemExit("leak-workload: the host closed stdout while a push was awaited")
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict) and "method" not in item and "id" in item:
                answers.setdefault(json.dumps(item["id"]), item)


pushed(lambda m: m.get("method") == "chat.message" and m["params"]["message"].get("clientMessageId") == "leak-4", "chat.message push")
pushed(lambda m: m.get("method") == "mail.changed" and m["params"].get("subscriptionId") == mail_subscription, "mail.changed push")
call("chat.unsubscribe", {"subscriptionId": chat_subscription})
call("chat.unsubscribe", {"subscriptionId": chat_subscription}, expect="error")

records = [{"uid": f"imp{k}", "from": "matt@gmail.com", "to": "demo@switchboard.example", "subject": f"Import {k}",
            "text": "Imported " * 20, "responseToUid": f"imp{k - 1}" if k else "", "dateTime": "2025-12-30T10:00:00Z"}
           for k in range(12)]
records.append({"uid": "bad", "from": "nobody", "dateTime": "yesterday-ish"})
import_path = os.path.join(os.path.abspath(args.import_dir), "leak-import.json")
with open(import_path, "w") as file:
    json.dump({"inbox": records}, file)
call("mail.import", {"path": import_path})
call("mail.import", {"path": import_path})                                  # everything skipped now
call("mail.import", {"path": os.path.join(os.path.abspath(args.import_dir), "missing.json")}, expect="error")
next_id[0] += 1
send({"jsonrpc": "2.0", "id": next_id[0], "method": "mail.import", "params": {"records": records[:3]}})
answer(next_id[0])                                                          # inline records: either answer

# Batches of domain calls, run as tasks, one with a running task cancelled inside it.
batch = [{"jsonrpc": "2.0", "id": f"b{k}", "method": method, "params": params} for k, (method, params) in enumerate([
    ("inbox.list", {"limit": 3}), ("feed.list", {"limit": 10}), ("mail.search", {"query": "import"}),
    ("mail.folders", {}), ("feed.page", {"page": 2}), ("mail.send", {"to": "ada@example.com", "subject": "b", "text": "t"}),
])]
send(json.dumps(batch))
for k in range(len(batch)):
    if "result" not in answer(f"b{k}"):
        fail(f"batch member b{k} failed: {answer(f'b{k}')}")
send(json.dumps([{"jsonrpc": "2.0", "id": "bs", "method": "host.sleep", "params": {"ms": 60000}},
                 {"jsonrpc": "2.0", "id": "bf", "method": "feed.list", "params": {"limit": 5}}]))
send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "bs"}})
if (answer("bs").get("error") or {}).get("code") != -32800:
    fail(f"the sleep cancelled inside a batch was not answered -32800: {answer('bs')}")

# A pipelined burst of domain requests (many tasks at once), some cancelled while they may run.
burst = []
for k in range(60):
    method, params = [("inbox.list", {"limit": 5}), ("feed.list", {"limit": 20}), ("mail.search", {"query": "review"}),
                      ("feed.get", {"id": k + 1}), ("mail.get", {"uid": uid})][k % 5]
    burst.append(f"p{k}")
    send({"jsonrpc": "2.0", "id": f"p{k}", "method": method, "params": params})
    if k % 7 == 3:
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": f"p{k}"}})
for request_id in burst:
    reply = answer(request_id)
    if "result" not in reply and (reply.get("error") or {}).get("code") != -32800:
        fail(f"burst request {request_id} failed: {reply}")
call("mail.login", {"email": "leak@example.com", "password": "secret"})
call("inbox.list")

# Lifecycle.
send({"jsonrpc": "2.0", "id": "shutdown", "method": "shutdown"})
send({"jsonrpc": "2.0", "id": "late", "method": "host.ping"})              # refused after shutdown
if (answer("late").get("error") or {}).get("code") != -32600:
    fail(f"the request after shutdown was not refused -32600: {answer('late')}")
host.stdin.close()
while incoming.get(timeout=args.timeout) is not None:
    pass
status = host.wait(timeout=args.timeout)
if status != 0:
    fail(f"the host exited with status {status}")
if args.out:
    with open(args.out, "w") as file:
        for message in received:
            file.write(json.dumps(message) + "\n")
notifications = sum(1 for m in received if isinstance(m, dict) and "method" in m)
print(f"leak-workload {args.framing}: {len(received)} messages received ({notifications} notifications), "
      f"{len(answers)} answers, {len(failures)} failures")
sys.exit(1 if failures else 0)

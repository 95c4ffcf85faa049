"""scripts/soak's load: the three drivers over a ``Connection`` (soak_connection.py): the plain
JSON-RPC client of the first host, the MCP client of the second, and the plugin killer."""
import heapq, json, os, random, signal, threading, time
from collections import Counter

from soak_connection import PLUGIN_ERROR

CHAT_ROOM = "dm-u0-u1"


class Lulls:
    """When the load pauses: from ``every`` seconds into the run, then every ``every`` seconds, for
    ``length`` seconds (none when ``every`` is 0), so that what an idle host gives back shows."""

    def __init__(self, began, every, length):
        self.began, self.every, self.length = began, every, length

    def resume_at(self, now):
        """The monotonic time the load may go on at: ``now`` outside a lull, the lull's end inside one."""
        if self.every <= 0 or self.length <= 0:
            return now
        into = now - self.began
        k = int(into // self.every)
        if k >= 1 and into - k * self.every < self.length:
            return self.began + k * self.every + self.length
        return now

    def spans(self, duration):
        """The lulls within ``duration`` seconds of the start, as (from, to) seconds."""
        if self.every <= 0 or self.length <= 0:
            return []
        spans, k = [], 1
        while k * self.every < duration:
            spans.append((k * self.every, min(duration, k * self.every + self.length)))
            k += 1
        return spans


class Driver:
    """Sends a weighted mix of actions at a steady rate until the deadline, from a thread of its own,
    and runs the delayed actions (cancellations) it schedules; sends nothing new during a lull."""

    lulls = None   # a Lulls shared by every driver, or None

    def __init__(self, connection, rate, seed):
        self.connection, self.rate = connection, rate
        self.random = random.Random(seed)
        self.later = []          # heap of (time, n, action)
        self.counter = 0
        self.thread = None

    def actions(self):
        raise NotImplementedError

    def after(self, seconds, action):
        self.counter += 1
        heapq.heappush(self.later, (time.monotonic() + seconds, self.counter, action))

    def start(self, deadline):
        self.deadline = deadline
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def join(self):
        self.thread.join()

    def _run(self):
        table = self.actions()
        names, weights = zip(*[(action, weight) for action, weight in table])
        interval, next_send = 1 / self.rate, time.monotonic()
        while True:
            now = time.monotonic()
            while self.later and self.later[0][0] <= now:
                heapq.heappop(self.later)[2]()
            if now >= self.deadline or self.connection.ended:
                break
            if self.lulls is not None:
                next_send = max(next_send, self.lulls.resume_at(now))
            if now >= next_send:
                self.random.choices(names, weights)[0]()
                next_send += interval
                if next_send < now - 1:
                    next_send = now
            wake = min(next_send, self.deadline, self.later[0][0] if self.later else self.deadline)
            time.sleep(max(0, wake - time.monotonic()))


class HostLoad(Driver):
    """The first host's client: plain JSON-RPC over every namespace, subscriptions, cancellations."""

    MAX_SUBSCRIPTIONS = 6

    def __init__(self, connection, rate, window, seed, sampler):
        super().__init__(connection, rate, seed)
        self.sampler = sampler
        self.subscriptions = {}        # id → namespace, live
        self.unsubscribed = set()      # ids whose unsubscribe was answered
        self.closing = set()           # ids whose unsubscribe was sent
        self.subscribing = 0
        self.late_pushes = Counter()
        self.pushes_by_namespace = Counter()
        self.unknown_pushes = Counter()
        self.events = []               # calendar event ids created
        self.thread_ids = ["t-1"]
        self.feed_cursor = None
        self.newest_message = None
        self.states = {}
        self.chat_answered = set()
        self.chat_states = Counter()
        self.chat_early = []
        self.sends = 0
        self.progress = Counter()
        connection.listeners["chat.messageState"] = self._message_state
        for method in ("mail.changed", "chat.message", "catalog.changed", "calendar.changed", "resources.updated"):
            connection.listeners[method] = self._push
        connection.listeners["host.subscriptionDropped"] = self._dropped

    # Pushes

    def _push(self, params):
        sid = params.get("subscriptionId")
        namespace = sid.split("-sub-")[0] if isinstance(sid, str) else "?"
        self.pushes_by_namespace[namespace] += 1
        if sid in self.unsubscribed:
            self.late_pushes[sid] += 1
        elif sid not in self.subscriptions:
            self.unknown_pushes[sid] += 1

    def _dropped(self, params):
        self.connection._problem(f"subscription dropped: {params}")

    def _message_state(self, params):
        cmid = params.get("clientMessageId")
        if cmid not in self.chat_answered:
            self.chat_early.append(cmid)
        self.chat_states[cmid] += 1
        if params.get("state") != "sent":
            self.connection._problem(f"chat.messageState not sent: {params}")

    def chat_report(self):
        doubled = sum(1 for n in self.chat_states.values() if n > 1)
        missing = len(self.chat_answered - set(self.chat_states))
        return {"sends_answered": len(self.chat_answered), "states": sum(self.chat_states.values()),
                "missing": missing, "doubled": doubled, "before_answer": len(self.chat_early)}

    def subscription_report(self):
        return {"opened": len(self.subscriptions) + len(self.unsubscribed), "closed": len(self.unsubscribed),
                "pushes": sum(self.pushes_by_namespace.values()), "pushes_by_namespace": dict(self.pushes_by_namespace),
                "pushes_after_unsubscribe_answer": sum(self.late_pushes.values()),
                "pushes_for_unknown_ids": sum(self.unknown_pushes.values())}

    def failures(self):
        report = self.chat_report()
        failures = []
        if report["missing"] or report["doubled"] or report["before_answer"]:
            failures.append(f"chat.messageState not exactly once after the answer: {report}")
        if self.unknown_pushes:
            failures.append(f"pushes naming a subscription never opened: {dict(self.unknown_pushes)}")
        return failures

    # The mix

    def actions(self):
        c, r = self.connection, self.random
        day = lambda: f"2026-01-{r.randint(2, 28):02d}"
        plugin = (PLUGIN_ERROR,)
        return [
            (lambda: c.request("host.ping", "host.ping", string_id=True), 4),
            (lambda: c.request("host.echo", "host.echo", {"n": r.randint(0, 2**53), "s": "é" * r.randint(0, 64)}), 3),
            (lambda: c.request("host.status", "host.status"), 1),
            (lambda: c.request("host.methods", "host.methods"), 0.3),
            (lambda: c.request("rpc.discover", "rpc.discover"), 0.2),
            (self.sleep, 2),
            (self.cancel_any, 2),
            (lambda: c.request("inbox.list", "inbox.list", {"limit": 20}, on_answer=self._threads), 4),
            (lambda: c.request("mail.folders", "mail.folders", on_answer=self._state("mail")), 2),
            (lambda: c.request("mail.thread", "mail.thread", {"threadId": r.choice(self.thread_ids)}, allowed=(-32004,)), 2),
            (lambda: c.request("mail.get", "mail.get", {"uid": f"m{r.randint(1, 400):06d}"}), 2),
            (lambda: c.request("mail.search", "mail.search", {"query": r.choice(["lunch", "report", "meeting", "soak"]),
                                                              "limit": 10}), 2),
            (lambda: c.request("mail.markRead", "mail.markRead", {"uids": [f"m{r.randint(1, 400):06d}" for _ in range(3)],
                                                                  "read": r.random() < 0.5}), 3),
            (lambda: c.request("mail.move", "mail.move", {"uids": [f"m{r.randint(1, 400):06d}"],
                                                          "folder": r.choice(["Inbox", "Archive"])}), 1),
            (lambda: c.request("mail.send", "mail.send", {"to": "ada@example.com", "subject": f"soak {r.random()}",
                                                          "text": "x" * r.randint(1, 2000)}), 1),
            (lambda: self.changes("mail"), 1),
            (self.feed_list, 3),
            (lambda: c.request("feed.page", "feed.page", {"page": r.randint(1, 400), "pageSize": 50}), 2),
            (lambda: c.request("feed.get", "feed.get", {"id": r.randint(1, 20000)}), 2),
            (lambda: self.changes("feed"), 0.5),
            (lambda: c.request("chat.rooms", "chat.rooms", on_answer=self._state("chat")), 2),
            (lambda: c.request("chat.users", "chat.users", {"limit": 5}), 1),
            (lambda: c.request("chat.history", "chat.history", {"roomId": CHAT_ROOM, "limit": 20},
                               on_answer=self._newest), 2),
            (self.mark_read, 1),
            (self.chat_send, 3),
            (lambda: c.request("chat.open", "chat.open", {"userId": f"u{r.randint(1, 6)}"}), 0.5),
            (lambda: self.changes("chat"), 1),
            (lambda: c.request("catalog.sectors", "catalog.sectors", {"locale": r.choice(["de", "sv", "en", "de-u-co-phonebk"])},
                               on_answer=self._state("catalog")), 2),
            (lambda: c.request("catalog.brochures", "catalog.brochures", {"limit": 20}), 1),
            (lambda: c.request("catalog.search", "catalog.search", {"query": r.choice(["öl", "reisen", "bike"])}), 1),
            (lambda: c.request("catalog.get", "catalog.get", {"id": r.randint(1, 300)}, allowed=(-32004,)), 1),
            (self.catalog_import, 0.5),
            (lambda: self.changes("catalog"), 0.5),
            (lambda: c.request("calendar.agenda", "calendar.agenda", {"from": "2026-01-01", "to": "2026-01-31",
                                                                      "timeZone": r.choice(["Europe/Berlin", "America/New_York", "Asia/Tokyo"])},
                               on_answer=self._state("calendar")), 2),
            (lambda: c.request("calendar.day", "calendar.day", {"date": day()}), 2),
            (lambda: c.request("calendar.get", "calendar.get", {"id": "demo-standup"}), 1),
            (lambda: c.request("calendar.export", "calendar.export", {"from": "2026-01-05", "to": "2026-01-12"}), 0.3),
            (self.calendar_write, 2),
            (lambda: self.changes("calendar"), 0.5),
            (lambda: c.request("resources.list", "resources.list"), 1),
            (lambda: c.request("resources.templates", "resources.templates"), 0.5),
            (lambda: c.request("resources.read", "resources.read", {"uri": r.choice(["mail://inbox", "feed://items", "feed://item/42"])}), 2),
            # While the weather plugin is down (killed, not yet restarted by a tool call) its URIs are
            # nobody's: -32602, counted apart (docs/benchmarks.md, the soak's section).
            (lambda: c.request("resources.read(plugin)", "resources.read", {"uri": f"weather://forecast/{day()}"},
                               allowed=(PLUGIN_ERROR, -32602)), 1),
            (lambda: c.request("plugins.list", "plugins.list"), 0.5),
            (lambda: c.request("plugins.restart", "plugins.restart", {"name": "words"}, allowed=plugin), 0.1),
            (lambda: c.request("weather.forecast", "weather.forecast", {"date": day(), "place": r.choice(["Berlin", "Oslo"])},
                               allowed=plugin), 3),
            (lambda: c.request("weather.agenda", "weather.agenda", {"from": day(), "to": "2026-01-31", "timeZone": "Europe/Berlin"},
                               allowed=plugin), 2),
            (lambda: c.request("words.count", "words.count", {"text": "one two three " * r.randint(1, 50)}, allowed=plugin), 2),
            (self.subscribe, 1.5),
            (self.unsubscribe, 1.2),
        ]

    def _state(self, namespace):
        def keep(result, error):
            if isinstance(result, dict) and isinstance(result.get("state"), str):
                self.states[namespace] = result["state"]
        return keep

    def changes(self, namespace):
        since = self.states.get(namespace)
        if since is None:
            return
        self.connection.request(f"{namespace}.changes", f"{namespace}.changes", {"sinceState": since}, allowed=(-32010,))

    def _threads(self, result, error):
        if isinstance(result, dict):
            ids = [item.get("threadId") for item in result.get("items", []) if isinstance(item, dict)]
            self.thread_ids = [i for i in ids if isinstance(i, str)] or self.thread_ids
            if isinstance(result.get("state"), str):
                self.states["mail"] = result["state"]

    def feed_list(self):
        params = {"limit": 50}
        if self.feed_cursor and self.random.random() < 0.9:
            params["cursor"] = self.feed_cursor

        def keep(result, error):
            self.feed_cursor = result.get("nextCursor") if isinstance(result, dict) else None
            self._state("feed")(result, error)
        self.connection.request("feed.list", "feed.list", params, on_answer=keep)

    def sleep(self):
        """host.sleep with progress; most are cancelled part-way, some run out."""
        ms = self.random.randint(50, 1500)
        token = f"p{self.counter}-{self.random.random()}"
        request_id = self.connection.request("host.sleep", "host.sleep", {"ms": ms, "steps": 3, "_meta": {"progressToken": token}})
        if self.random.random() < 0.7:
            self.after(self.random.uniform(0, ms / 1000), lambda: self.connection.cancel(request_id))

    def cancel_any(self):
        """Cancels a request in flight, whatever it is (not chat.send, whose state is checked, nor
        subscriptions, which the mix tracks)."""
        candidates = [i for i, p in self.connection.in_flight()
                      if p.kind not in ("chat.send", "subscribe", "unsubscribe", "plugins.list")]
        if candidates:
            self.connection.cancel(self.random.choice(candidates))

    def chat_send(self):
        self.sends += 1
        cmid = f"soak-{self.sends}"

        def answered(result, error):
            if result is not None:
                self.chat_answered.add(cmid)
        self.connection.request("chat.send", "chat.send", {"roomId": CHAT_ROOM, "text": f"soak {self.sends}",
                                                           "clientMessageId": cmid}, on_answer=answered)

    def _newest(self, result, error):
        items = result.get("items") if isinstance(result, dict) else None
        if items:
            self.newest_message = items[0].get("id")

    def mark_read(self):
        if self.newest_message:
            self.connection.request("chat.markRead", "chat.markRead", {"roomId": CHAT_ROOM, "upTo": self.newest_message})

    def catalog_import(self):
        n = self.random.randint(1, 1000)
        document = {"sectors": [{"id": 9001, "name": "Soak", "url": "https://example.com/soak",
                                 "brochures": [{"id": 90001 + n % 5, "title": f"Soak {n}", "retailerName": "Soak",
                                                "coverUrl": "https://example.com/c.png"}]}]}
        self.connection.request("catalog.import", "catalog.import", {"document": document})

    def calendar_write(self):
        c, r = self.connection, self.random
        if len(self.events) < 20 or r.random() < 0.3:
            self.counter += 1
            event_id = f"soak-{self.counter}-{r.randint(0, 10**9)}"

            def created(result, error):
                if result is not None:
                    self.events.append(event_id)
            c.request("calendar.create", "calendar.create", {"id": event_id, "title": "Soak", "start": f"2026-01-{r.randint(2, 28):02d}T10:00:00",
                                                            "timeZone": "Europe/Berlin", "duration": "PT1H"}, on_answer=created)
        elif r.random() < 0.5:
            c.request("calendar.update", "calendar.update", {"id": r.choice(self.events), "patch": {"title": f"Soak {r.random()}"}},
                      allowed=(-32004,))
        else:
            event_id = self.events.pop(r.randrange(len(self.events)))
            c.request("calendar.delete", "calendar.delete", {"id": event_id}, allowed=(-32004,))

    def subscribe(self):
        if len(self.subscriptions) - len(self.closing & set(self.subscriptions)) + self.subscribing >= self.MAX_SUBSCRIPTIONS:
            return self.unsubscribe()
        namespace, params = self.random.choice([
            ("mail", {}), ("chat", {"roomId": CHAT_ROOM}), ("catalog", {}), ("calendar", {}),
            ("resources", {"uri": "mail://inbox"}), ("resources", {"uri": "feed://items"}),
        ])
        self.subscribing += 1

        def opened(result, error):
            self.subscribing -= 1
            if isinstance(result, dict) and isinstance(result.get("subscriptionId"), str):
                self.subscriptions[result["subscriptionId"]] = namespace
        self.connection.request("subscribe", f"{namespace}.subscribe", params, on_answer=opened)

    def unsubscribe(self):
        open_ids = [sid for sid in list(self.subscriptions) if sid not in self.closing]
        if not open_ids:
            return
        sid = self.random.choice(open_ids)
        namespace = self.subscriptions[sid]
        self.closing.add(sid)

        def closed(result, error):
            # Pushes may precede this answer; none may follow it.
            self.subscriptions.pop(sid, None)
            self.unsubscribed.add(sid)
        self.connection.request("unsubscribe", f"{namespace}.unsubscribe", {"subscriptionId": sid}, on_answer=closed)


class PeerLoad(Driver):
    """The second host's client: an MCP client (tools, resources, cancellation) writing the same
    database as chat user u1."""

    def __init__(self, connection, rate, window, seed):
        super().__init__(connection, rate, seed)
        self.tools_cursor = None
        self.sends = 0
        self.resource_subscribed = False

    def handshake(self):
        done = threading.Event()
        self.connection.request("initialize", "initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}},
            on_answer=lambda result, error: done.set())
        done.wait(60)
        self.connection.notify("notifications/initialized")

    def tool(self, name, arguments, plugin=False):
        def checked(result, error):
            if isinstance(result, dict) and result.get("isError"):
                self.connection.errors[f"tools/call:{name} isError"] += 1
                if not plugin:
                    self.connection._problem(f"tools/call {name} isError: {json.dumps(result)[:200]}")
        return self.connection.request(f"tools/call:{name}", "tools/call", {"name": name, "arguments": arguments},
                                       on_answer=checked)

    def actions(self):
        c, r = self.connection, self.random
        return [
            (lambda: c.request("ping", "ping"), 1),
            (self.tools_list, 1),
            (self.chat_send, 3),
            (lambda: self.tool("mail.send", {"to": "demo@switchboard.example", "subject": "from the peer",
                                             "text": "y" * r.randint(1, 500)}), 1),
            (lambda: self.tool("mail.markRead", {"uids": [f"m{r.randint(1, 400):06d}"], "read": r.random() < 0.5}), 2),
            (lambda: self.tool("inbox.list", {"limit": 10}), 1),
            (lambda: self.tool("chat.history", {"roomId": CHAT_ROOM, "limit": 10}), 1),
            (lambda: self.tool("calendar.day", {"date": f"2026-01-{r.randint(2, 28):02d}", "timeZone": "Asia/Tokyo"}), 1),
            (lambda: self.tool("weather.forecast", {"date": "2026-01-05", "place": "Lagos"}, plugin=True), 1),
            (lambda: self.tool("words.count", {"text": "a b c"}, plugin=True), 0.5),
            (lambda: c.request("resources/read", "resources/read", {"uri": r.choice(["mail://inbox", "feed://item/7"])}), 1),
            (self.resource_subscription, 0.5),
            (self.sleep, 1),
        ]

    def tools_list(self):
        params = {"cursor": self.tools_cursor} if self.tools_cursor else {}

        def keep(result, error):
            self.tools_cursor = result.get("nextCursor") if isinstance(result, dict) else None
        self.connection.request("tools/list", "tools/list", params, on_answer=keep)

    def chat_send(self):
        self.sends += 1
        self.tool("chat.send", {"roomId": CHAT_ROOM, "text": f"peer {self.sends}", "clientMessageId": f"peer-{self.sends}"})

    def resource_subscription(self):
        method = "resources/unsubscribe" if self.resource_subscribed else "resources/subscribe"
        self.resource_subscribed = not self.resource_subscribed
        self.connection.request(method, method, {"uri": "mail://inbox"})

    def sleep(self):
        request_id = self.tool("host.sleep", {"ms": self.random.randint(100, 1000), "steps": 2})
        self.after(self.random.uniform(0, 0.5), lambda: self.connection.cancel(request_id, "notifications/cancelled", "requestId"))


class Killer(Driver):
    """Every few seconds, asks the first host for plugins.list and SIGKILLs one running plugin — one
    not killed in the last COOLDOWN seconds: the supervisor gives a plugin up (`failed`, until
    plugins.restart) after 3 crashes within 60 s, and the soak checks restarts, not that policy."""

    COOLDOWN = 31

    def __init__(self, connection, sampler, every, seed):
        super().__init__(connection, 1 / every, seed)
        self.sampler = sampler
        self.kills = 0
        self.kills_by_plugin = Counter()
        self.last_kill = {}
        self.last_list = None
        self._listed = threading.Event()

    def actions(self):
        return [(self.kill, 1)]

    def start(self, deadline):
        super().start(deadline)

    def _run(self):
        # The first kill comes one period in, not at once.
        time.sleep(min(1 / self.rate, max(0, self.deadline - time.monotonic())))
        super()._run()
        self.list_plugins()

    def list_plugins(self):
        self._listed.clear()

        def keep(result, error):
            if isinstance(result, dict):
                self.last_list = result.get("items")
            self._listed.set()
        if self.connection.request("plugins.list", "plugins.list", on_answer=keep) is not None:
            self._listed.wait(60)
        return self.last_list or []

    def kill(self):
        now = time.monotonic()
        running = [p for p in self.list_plugins() if p.get("state") == "running" and isinstance(p.get("pid"), int)
                   and now - self.last_kill.get(p.get("name"), -1e9) >= self.COOLDOWN]
        if not running:
            return
        victim = self.random.choice(running)
        try:
            os.kill(victim["pid"], signal.SIGKILL)
        except ProcessLookupError:
            return
        self.kills += 1
        self.kills_by_plugin[victim["name"]] += 1
        self.last_kill[victim["name"]] = now

    def plugin_report(self):
        return {p.get("name"): {"kills": self.kills_by_plugin[p.get("name")], "restarts": p.get("restarts"),
                                "state_at_end": p.get("state")} for p in (self.last_list or [])}

    def failures(self):
        return [f"plugin {p.get('name')} is {p.get('state')} at the end: {p.get('lastError')}"
                for p in (self.last_list or []) if p.get("state") not in ("running", "stopped")]

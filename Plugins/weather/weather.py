#!/usr/bin/env python3
"""The weather plugin: an MCP server over stdio in Python's standard library only.

Tools: weather.forecast {date, place?} and weather.agenda {from, to, timeZone?, place?}, which calls back
into the host's calendar.agenda and adds each day's forecast for the place and each event's for its
location. Resources: weather://forecast/{date} (the home place). Forecasts are Open-Meteo's
(source "open-meteo"), cached for an hour; `--offline` or WEATHER_OFFLINE=1 answers deterministic
stand-ins instead (source "synthetic"). Settings: see plugin.json's env and Plugins/README.md.
"""
import datetime
import json
import math
import os
import select
import sys
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the plugin's folder (read-only once installed or sandboxed)

from cache import Cache, data_folder  # noqa: E402
from forecasts import REASONS, Forecasts, explain, synthetic  # noqa: E402
from openmeteo import ARCHIVE_URL, CONDITIONS, Cancelled, FORECAST_URL, GEOCODING_URL, OpenMeteo, ProviderError, excerpt  # noqa: E402

SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
# A tool call answers within this many seconds (the manifest's timeoutMs is 30000): past it, a timeout error.
CALL_BUDGET_SECONDS = 20
# Distinct event places one agenda looks up; events at further places say reason "tooManyPlaces".
MAX_EVENT_PLACES = 25
# Location names tried per event (its locations in key order, each also by its last comma-separated part).
MAX_EVENT_NAMES = 3

DATE = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
PLACE = {"type": "string", "minLength": 1, "maxLength": 200}
NUMBER = {"type": "number"}
FORECAST = {
    "type": "object",
    "required": ["date", "place", "conditions", "highC", "lowC", "source"],
    "additionalProperties": False,
    "properties": {
        "date": DATE, "place": {"type": "string"},
        "conditions": {"type": "string", "enum": sorted(set(CONDITIONS) | {"windy"})},
        "description": {"type": "string", "description": "The WMO weather code's meaning."},
        "weatherCode": {"type": "integer", "description": "WMO weather interpretation code."},
        "highC": NUMBER, "lowC": NUMBER,
        "precipitationChance": {"type": "integer", "minimum": 0, "maximum": 100, "description": "Percent, forecast days."},
        "precipitationMm": {"type": "number", "minimum": 0},
        "basis": {"enum": ["forecast", "archive"], "description": "Open-Meteo's forecast API, or its archive for past days."},
        "location": {"type": "object", "required": ["name", "latitude", "longitude"], "additionalProperties": False,
                     "properties": {"name": {"type": "string"}, "country": {"type": "string"}, "region": {"type": "string"},
                                    "latitude": NUMBER, "longitude": NUMBER, "timeZone": {"type": "string"}},
                     "description": "Where the geocoder placed `place`."},
        "source": {"enum": ["open-meteo", "synthetic"]},
    },
}
MAYBE_FORECAST = {**FORECAST, "type": ["object", "null"]}
REASON = {"enum": sorted(REASONS), "description": "Why forecast is null."}
AGENDA = {
    "type": "object",
    "required": ["days", "place", "source"],
    "properties": {
        "from": DATE, "to": DATE, "timeZone": {"type": "string"}, "state": {"type": "string"},
        "truncated": {"type": "object"},
        "place": {"type": "string", "description": "The place each day's forecast is for."},
        "source": {"enum": ["open-meteo", "synthetic"]},
        "days": {"type": "array", "items": {
            "type": "object", "required": ["date", "events", "forecast"],
            "properties": {
                "date": DATE, "forecast": MAYBE_FORECAST, "reason": REASON,
                "events": {"type": "array", "items": {
                    "type": "object",
                    "description": "calendar.agenda's event; one with a location has its place's forecast too.",
                    "properties": {"forecast": MAYBE_FORECAST, "reason": REASON}}},
            },
        }},
    },
}
TOOLS = [
    {"name": "forecast",
     "description": "The forecast for a date and place (default: the home place): Open-Meteo's, up to 16 days "
                    "ahead, past days from its archive.",
     "inputSchema": {"type": "object", "required": ["date"], "additionalProperties": False,
                     "properties": {"date": DATE, "place": PLACE}},
     "outputSchema": FORECAST},
    {"name": "agenda",
     "description": "The calendar's agenda from..to, each day with the forecast for place (default: the home "
                    "place) and each event with a location with its own; days beyond the 16-day horizon have "
                    "forecast null and reason beyondHorizon.",
     "inputSchema": {"type": "object", "required": ["from", "to"], "additionalProperties": False,
                     "properties": {"from": DATE, "to": DATE, "timeZone": {"type": "string"}, "place": PLACE}},
     "outputSchema": AGENDA},
]


class ToolError(Exception):
    """A call that cannot be answered; the message starts with a one-word reason."""


def setting(name, default):
    value = os.environ.get(name)
    return default if value is None else value


OFFLINE = "--offline" in sys.argv[1:] or setting("WEATHER_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")
HOME = setting("WEATHER_HOME", "").strip() or "Berlin"


def make_forecasts():
    try:
        timeout = float(setting("WEATHER_TIMEOUT_S", "8"))
    except ValueError:
        timeout = 8.0
    timeout = timeout if math.isfinite(timeout) and timeout > 0 else 8.0
    provider = OpenMeteo(setting("WEATHER_FORECAST_URL", FORECAST_URL), setting("WEATHER_GEOCODING_URL", GEOCODING_URL),
                         setting("WEATHER_ARCHIVE_URL", ARCHIVE_URL), timeout=min(timeout, CALL_BUDGET_SECONDS))
    return Forecasts(provider, Cache(data_folder(os.environ)))


FORECASTS = None if OFFLINE else make_forecasts()

class Input:
    """Lines from stdin, read with os.read so that a call can look for a cancellation without
    blocking (`ready_lines`) between its requests to the provider."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = b""
        self.lines = []
        self.ended = False

    def fill(self, block):
        if self.ended or (not block and not select.select([self.fd], [], [], 0)[0]):
            return
        chunk = os.read(self.fd, 65536)
        if not chunk:
            self.ended = True
            return
        *complete, self.buffer = (self.buffer + chunk).split(b"\n")
        self.lines.extend(complete)

    def readline(self):
        """The next line; exits at the end of input (the host closed the pipe)."""
        while not self.lines:
            if self.ended:
                sys.exit(0)
            self.fill(block=True)
        return self.lines.pop(0)

    def ready_lines(self):
        """Whatever complete lines have arrived, without waiting."""
        self.fill(block=False)
        lines, self.lines = self.lines, []
        return lines


STDIN = Input(sys.stdin.fileno())
pending = []  # messages read while waiting for a callback's answer or looking for a cancellation
next_id = 0


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def parse(line):
    try:
        return json.loads(line)
    except ValueError:
        return None  # not JSON: ignored (the host only sends JSON-RPC)


def read_message():
    while True:
        message = pending.pop(0) if pending else parse(STDIN.readline())
        if isinstance(message, dict):
            return message


def cancelled(ident):
    """True when `notifications/cancelled` for request `ident` has arrived (it is taken out of the input)."""
    for line in STDIN.ready_lines():
        message = parse(line)
        if isinstance(message, dict):
            pending.append(message)
    for message in pending:
        params = message.get("params")
        if message.get("method") == "notifications/cancelled" and isinstance(params, dict) and params.get("requestId") == ident:
            pending.remove(message)
            return True
    return False


def call_host(method, params):
    """A request to the host on stdout; the answer comes on stdin, between other messages."""
    global next_id
    next_id += 1
    ident = f"weather-{next_id}"
    send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    while True:
        message = parse(STDIN.readline())
        if not isinstance(message, dict):
            continue
        if message.get("id") == ident and "method" not in message:
            if "error" in message:
                raise ToolError(f"calendarFailed: calendar.agenda failed: {message['error'].get('message', 'error')}")
            return message["result"]
        pending.append(message)


def checked_date(text):
    try:
        datetime.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise KeyError(f"date: {excerpt(text, 20)} is not a calendar date") from None
    return text


def locate(place):
    location = FORECASTS.locate(place)
    if location is None:
        raise ToolError(explain("unknownPlace", place=excerpt(place)))
    return location


def forecast(arguments):
    date, place = checked_date(arguments["date"]), arguments.get("place") or HOME
    if OFFLINE:
        return synthetic(date, place)
    answer, reason = FORECASTS.for_dates(locate(place), place, [date])[date]
    if answer is None:
        raise ToolError(explain(reason, date=date))
    return answer


def event_places(event):
    """The names an event's locations give, in key order, each also by its last comma-separated part
    ("Alexanderplatz 1, Berlin" → "Berlin"), at most MAX_EVENT_NAMES locations."""
    locations = event.get("locations") if isinstance(event, dict) else None
    if not isinstance(locations, dict):
        return []
    names = []
    for key in sorted(locations)[:MAX_EVENT_NAMES]:
        name = locations[key].get("name") if isinstance(locations[key], dict) else None
        if isinstance(name, str) and name.strip():
            names.append(name.strip())
            tail = name.rsplit(",", 1)[-1].strip()
            if tail and tail != name.strip():
                names.append(tail)
    return names


def agenda(arguments):
    params = {"from": arguments["from"], "to": arguments["to"]}
    if "timeZone" in arguments:
        params["timeZone"] = arguments["timeZone"]
    calendar = call_host("calendar.agenda", params)
    days = calendar.get("days") if isinstance(calendar, dict) else None
    if not isinstance(days, list):
        raise ToolError("calendarFailed: calendar.agenda answered no days")
    days = [day for day in days if isinstance(day, dict) and isinstance(day.get("date"), str)]
    place = arguments.get("place") or HOME
    result = {key: calendar[key] for key in ("from", "to", "timeZone", "state", "truncated") if key in calendar}
    if OFFLINE:
        for day in days:
            day["forecast"] = synthetic(day["date"], place)
            for event in day.get("events") or []:
                names = event_places(event)
                if names:
                    event["forecast"] = synthetic(day["date"], names[0])
        return {**result, "place": place, "source": "synthetic", "days": days}
    home = locate(place)
    # Where each event is: its first location name the geocoder knows; a bounded number of names per call.
    located, looked_up = {}, 0
    wanted = {Forecasts.spot(home): (home, set(day["date"] for day in days))}
    for day in days:
        for event in day.get("events") or []:
            names = event_places(event)
            if not names:
                continue
            where, reason = None, "unknownPlace"
            for name in names:
                if name not in located:
                    if looked_up >= MAX_EVENT_PLACES:
                        reason = "tooManyPlaces"
                        break
                    looked_up += 1
                    located[name] = FORECASTS.locate(name)
                if located[name] is not None:
                    where = (name, located[name])
                    break
            event["_where"] = where or reason
            if where:
                wanted.setdefault(Forecasts.spot(where[1]), (where[1], set()))[1].add(day["date"])
    answers = {spot: FORECASTS.for_dates(location, None, dates) for spot, (location, dates) in wanted.items()}

    def attach(target, spot, date, name):
        answer, reason = answers[spot][date]
        target["forecast"] = None if answer is None else {**answer, "place": name}
        if reason:
            target["reason"] = reason

    for day in days:
        attach(day, Forecasts.spot(home), day["date"], place)
        for event in day.get("events") or []:
            where = event.pop("_where", None) if isinstance(event, dict) else None
            if isinstance(where, str):
                event["forecast"], event["reason"] = None, where
            elif where:
                attach(event, Forecasts.spot(where[1]), day["date"], where[0])
    return {**result, "place": place, "source": "open-meteo", "days": days}


def tool_result(result):
    return {"content": [{"type": "text", "text": json.dumps(result)}], "structuredContent": result}


def tool_error(text):
    return {"content": [{"type": "text", "text": text}], "isError": True}


def call_tool(params, ident):
    """The tool's result, or None when the call was cancelled before it finished (nothing is answered)."""
    name, arguments = params.get("name"), params.get("arguments") or {}
    tools = {"forecast": forecast, "agenda": agenda}
    if name not in tools:
        raise KeyError(f"name: no tool {excerpt(name, 40)}")
    if FORECASTS is not None:
        FORECASTS.provider.deadline = time.monotonic() + CALL_BUDGET_SECONDS
        FORECASTS.provider.cancelled = lambda: cancelled(ident)
    try:
        return tool_result(tools[name](arguments))
    except Cancelled:
        return None
    except ProviderError as error:
        return tool_error(f"{error.reason}: {error}")
    except ToolError as error:
        return tool_error(str(error))


def read_resource(params, ident):
    uri = params["uri"]
    date = checked_date(uri.rsplit("/", 1)[-1])
    if OFFLINE:
        answer = synthetic(date, HOME)
    else:
        FORECASTS.provider.deadline = time.monotonic() + CALL_BUDGET_SECONDS
        FORECASTS.provider.cancelled = lambda: cancelled(ident)
        try:
            answer = forecast({"date": date})
        except Cancelled:
            return None
    return {"contents": [{"uri": uri, "mimeType": "application/json", "text": json.dumps(answer)}]}


def handle(message):
    method, ident = message.get("method"), message.get("id")
    if method is None or ident is None:
        return  # notifications (initialized, cancelled) and stray answers
    params = message.get("params") or {}
    try:
        if method == "initialize":
            asked = params.get("protocolVersion")
            result = {"protocolVersion": asked if asked in SUPPORTED else SUPPORTED[1],
                      "capabilities": {"tools": {"listChanged": False}, "resources": {}},
                      "serverInfo": {"name": "weather", "version": "2.0.0"}}
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            result = call_tool(params, ident)
            if result is None:
                return  # cancelled: the client expects no answer
        elif method == "resources/list":
            result = {"resources": []}
        elif method == "resources/templates/list":
            result = {"resourceTemplates": [{"uriTemplate": "weather://forecast/{date}", "name": "forecast",
                                             "mimeType": "application/json"}]}
        elif method == "resources/read":
            result = read_resource(params, ident)
            if result is None:
                return
        else:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"Method not found: {method}"}})
            return
    except KeyError as error:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32602, "message": f"Invalid params: {error.args[0]}"}})
        return
    except (ProviderError, ToolError) as error:
        reason = f"{error.reason}: " if isinstance(error, ProviderError) else ""
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32603, "message": f"{reason}{error}"}})
        return
    except Exception as error:  # a bug of ours: answered, not a crash; the details go to stderr
        traceback.print_exc(file=sys.stderr)
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32603, "message": f"weather: internal error ({type(error).__name__})"}})
        return
    send({"jsonrpc": "2.0", "id": ident, "result": result})


def main():
    while True:
        handle(read_message())


if __name__ == "__main__":
    main()

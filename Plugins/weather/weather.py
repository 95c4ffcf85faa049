#!/usr/bin/env python3
"""The weather plugin: an MCP server over stdio in Python's standard library only.

Tools: weather.forecast {date, place} (deterministic from date and place) and
weather.agenda {from, to, timeZone?}, which calls back into the host's calendar.agenda and adds each
day's forecast. Resources: weather://forecast/{date}.
"""
import hashlib
import json
import sys

SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
CONDITIONS = ["sunny", "cloudy", "rain", "showers", "fog", "snow", "windy"]
DATE = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
FORECAST = {
    "type": "object",
    "required": ["date", "place", "conditions", "highC", "lowC"],
    "properties": {"date": DATE, "place": {"type": "string"}, "conditions": {"type": "string"},
                   "highC": {"type": "integer"}, "lowC": {"type": "integer"}},
}
TOOLS = [
    {"name": "forecast", "description": "The forecast for a date and place (deterministic).",
     "inputSchema": {"type": "object", "required": ["date", "place"], "additionalProperties": False,
                     "properties": {"date": DATE, "place": {"type": "string", "minLength": 1}}},
     "outputSchema": FORECAST},
    {"name": "agenda", "description": "The calendar's agenda from..to, with each day's forecast.",
     "inputSchema": {"type": "object", "required": ["from", "to"], "additionalProperties": False,
                     "properties": {"from": DATE, "to": DATE, "timeZone": {"type": "string"},
                                    "place": {"type": "string"}}}},
]

pending = []  # messages read while waiting for a callback's answer
next_id = 0


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def forecast(date, place):
    digest = hashlib.sha256(f"{date}|{place}".encode()).digest()
    high = digest[1] % 25
    return {"date": date, "place": place, "conditions": CONDITIONS[digest[0] % len(CONDITIONS)],
            "highC": high, "lowC": high - 2 - digest[2] % 8}


def read_message():
    if pending:
        return pending.pop(0)
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def call_host(method, params):
    """A request to the host on stdout; the answer comes on stdin, between other messages."""
    global next_id
    next_id += 1
    ident = f"weather-{next_id}"
    send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    while True:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        message = json.loads(line)
        if message.get("id") == ident and "method" not in message:
            if "error" in message:
                raise RuntimeError(message["error"].get("message", "error"))
            return message["result"]
        pending.append(message)


def agenda(arguments):
    params = {"from": arguments["from"], "to": arguments["to"]}
    if "timeZone" in arguments:
        params["timeZone"] = arguments["timeZone"]
    days = call_host("calendar.agenda", params)
    place = arguments.get("place", "Berlin")
    items = days.get("days", days.get("items", [])) if isinstance(days, dict) else days
    for day in items:
        if isinstance(day, dict) and isinstance(day.get("date"), str):
            day["forecast"] = forecast(day["date"], place)
    return {"days": items}


def call_tool(params):
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name == "forecast":
        result = forecast(arguments["date"], arguments["place"])
        return {"content": [{"type": "text", "text": json.dumps(result)}], "structuredContent": result}
    if name == "agenda":
        try:
            result = agenda(arguments)
        except RuntimeError as error:
            return {"content": [{"type": "text", "text": f"calendar.agenda failed: {error}"}], "isError": True}
        return {"content": [{"type": "text", "text": json.dumps(result)}], "structuredContent": result}
    raise KeyError(name)


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
                      "serverInfo": {"name": "weather", "version": "1.0.0"}}
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            result = call_tool(params)
        elif method == "resources/list":
            result = {"resources": []}
        elif method == "resources/templates/list":
            result = {"resourceTemplates": [{"uriTemplate": "weather://forecast/{date}", "name": "forecast",
                                             "mimeType": "application/json"}]}
        elif method == "resources/read":
            date = params["uri"].rsplit("/", 1)[-1]
            text = json.dumps(forecast(date, "Berlin"))
            result = {"contents": [{"uri": params["uri"], "mimeType": "application/json", "text": text}]}
        else:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"Method not found: {method}"}})
            return
    except KeyError as error:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32602, "message": f"Invalid params: {error}"}})
        return
    send({"jsonrpc": "2.0", "id": ident, "result": result})


def main():
    while True:
        handle(read_message())


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The weather plugin's parts alone (no host, no network): the WMO table, reading Open-Meteo's daily
columns, the cache's hour, the data folder, event places and the provider's refusals.

    python3 Tests/WeatherPlugin/test_weather.py      (scripts/test runs it; WeatherPluginBinaryTests runs the whole)
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.dont_write_bytecode = True  # nothing written into Plugins/weather
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Plugins", "weather"))
os.environ["WEATHER_OFFLINE"] = "1"  # importing weather.py must touch no data folder

import cache  # noqa: E402
import openmeteo  # noqa: E402
import weather  # noqa: E402
from openmeteo import OpenMeteo, ProviderError  # noqa: E402


class WMOTable(unittest.TestCase):
    def test_every_code_of_the_table_has_a_condition_the_schema_allows(self):
        allowed = set(weather.FORECAST["properties"]["conditions"]["enum"])
        for code in [0, 1, 2, 3, 45, 48, 51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 71, 73, 75, 77, 80, 81, 82, 85, 86, 95, 96, 99]:
            conditions, description = openmeteo.conditions(code)
            self.assertIn(conditions, allowed)
            self.assertNotEqual(conditions, "unknown", code)
            self.assertTrue(description)

    def test_groups(self):
        self.assertEqual(openmeteo.conditions(0)[0], "sunny")
        self.assertEqual(openmeteo.conditions(3), ("cloudy", "Overcast"))
        self.assertEqual(openmeteo.conditions(66)[0], "rain")
        self.assertEqual(openmeteo.conditions(86)[0], "snow showers")
        self.assertEqual(openmeteo.conditions(99)[0], "thunderstorm")

    def test_a_code_outside_the_table_is_unknown_not_guessed(self):
        self.assertEqual(openmeteo.conditions(4), ("unknown", "WMO weather code 4"))


class DailyColumns(unittest.TestCase):
    def answer(self, **columns):
        daily = {"time": ["2026-11-26", "2026-11-27"], "weather_code": [61, 3], "temperature_2m_max": [5.5, 4],
                 "temperature_2m_min": [1.0, -2], "precipitation_probability_max": [80.0, None], "precipitation_sum": [3.2, 0]}
        daily.update(columns)
        return {"daily": daily}

    def test_a_day_carries_its_values(self):
        days = OpenMeteo.daily(self.answer(), "forecast")
        self.assertEqual(days["2026-11-26"], {"conditions": "rain", "description": "Slight rain", "weatherCode": 61,
                                              "highC": 5.5, "lowC": 1.0, "basis": "forecast", "precipitationChance": 80,
                                              "precipitationMm": 3.2})
        self.assertNotIn("precipitationChance", days["2026-11-27"])

    def test_a_day_without_temperatures_or_code_is_none(self):
        days = OpenMeteo.daily(self.answer(temperature_2m_max=[None, 4]), "archive")
        self.assertIsNone(days["2026-11-26"])
        self.assertEqual(days["2026-11-27"]["basis"], "archive")

    def test_malformed_answers_are_bad_answers(self):
        for answer in [{}, {"daily": []}, {"daily": {"time": "2026"}}, self.answer(weather_code=[1]),
                       self.answer(time=[20261126, 20261127])]:
            with self.assertRaises(ProviderError) as caught:
                OpenMeteo.daily(answer, "forecast")
            self.assertEqual(caught.exception.reason, "badAnswer")


class Caching(unittest.TestCase):
    def test_an_entry_is_fresh_for_an_hour(self):
        with tempfile.TemporaryDirectory() as folder:
            store = cache.Cache(folder)
            store.put("forecast|x", {"days": {}})
            self.assertEqual(store.get("forecast|x"), {"days": {}})
            self.assertIsNone(store.get("forecast|y"))
            then = time.time() - cache.HOUR - 1
            os.utime(store.path("forecast|x"), (then, then))
            self.assertIsNone(store.get("forecast|x"))

    def test_a_broken_file_is_a_miss_and_an_unwritable_folder_only_costs_the_caching(self):
        with tempfile.TemporaryDirectory() as folder:
            store = cache.Cache(folder)
            store.put("k", 1)
            with open(store.path("k"), "w") as file:
                file.write("{half")
            self.assertIsNone(store.get("k"))
            blocked = cache.Cache(os.path.join(folder, "file"))
            with open(os.path.join(folder, "file"), "w"):
                pass
            blocked.put("k", 1)  # no exception
            self.assertIsNone(blocked.get("k"))

    def test_old_entries_are_pruned_when_the_cache_opens(self):
        with tempfile.TemporaryDirectory() as folder:
            store = cache.Cache(folder)
            store.put("old", 1)
            then = time.time() - cache.PRUNE_AFTER - 10
            os.utime(store.path("old"), (then, then))
            cache.Cache(folder)
            self.assertFalse(os.path.exists(store.path("old")))

    def test_the_data_folder(self):
        self.assertEqual(cache.data_folder({"WEATHER_DATA_DIR": "/d", "XDG_DATA_HOME": "/x"}), "/d")
        self.assertEqual(cache.data_folder({"XDG_DATA_HOME": "/x"}), "/x/switchboard/plugins/weather")
        self.assertTrue(cache.data_folder({}).endswith("/.local/share/switchboard/plugins/weather"))


class Requests(unittest.TestCase):
    def test_a_call_out_of_time_asks_nothing(self):
        provider = OpenMeteo("http://127.0.0.1:9/v1/forecast")
        provider.deadline = time.monotonic() - 1
        with self.assertRaises(ProviderError) as caught:
            provider.get(provider.forecast_url, {})
        self.assertEqual(caught.exception.reason, "timeout")

    def test_a_url_that_is_not_http_is_a_setting_to_fix_and_never_read(self):
        for url in ["no-scheme/v1/forecast", "file:///etc/passwd", "ftp://example.org/x", "http://127.0.0.1:99999/x"]:
            with self.assertRaises(ProviderError, msg=url) as caught:
                OpenMeteo(url).get(url, {})
            self.assertEqual(caught.exception.reason, "badSetting", url)
            self.assertNotIn("root", str(caught.exception))


class EventPlaces(unittest.TestCase):
    def test_names_in_key_order_with_their_last_part(self):
        event = {"locations": {"b": {"name": "Oslo"}, "a": {"name": "Alexanderplatz 1, Berlin"}, "c": {}}}
        self.assertEqual(weather.event_places(event), ["Alexanderplatz 1, Berlin", "Berlin", "Oslo"])

    def test_no_locations_no_places(self):
        self.assertEqual(weather.event_places({}), [])
        self.assertEqual(weather.event_places({"locations": []}), [])
        self.assertEqual(weather.event_places({"locations": {"a": {"name": "  "}}}), [])

    def test_at_most_three_locations(self):
        event = {"locations": {str(i): {"name": f"P{i}"} for i in range(10)}}
        self.assertEqual(weather.event_places(event), ["P0", "P1", "P2"])


class FakeProvider:
    """Open-Meteo's side without HTTP: two known places, a window of 2026-11-20...2026-11-30."""
    forecast_url, geocoding_url, archive_url = "f", "g", "a"

    def __init__(self):
        self.asked = []

    def geocode(self, name):
        self.asked.append(("geocode", name))
        known = {"Berlin": (52.5, 13.4), "Oslo": (59.9, 10.7)}
        return {"name": name, "latitude": known[name][0], "longitude": known[name][1]} if name in known else None

    def forecast_window(self, location):
        self.asked.append(("forecast", location["name"]))
        day = {"conditions": "sunny", "description": "Clear sky", "weatherCode": 0, "highC": 3, "lowC": -1, "basis": "forecast"}
        return {"first": "2026-11-20", "last": "2026-11-30", "days": {f"2026-11-{d}": dict(day) for d in range(20, 31)}}

    def archive(self, location, first, last):
        self.asked.append(("archive", location["name"], first, last))
        return {}


class Agenda(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.provider = FakeProvider()
        self.saved = weather.OFFLINE, weather.FORECASTS, weather.call_host
        weather.OFFLINE = False
        weather.FORECASTS = weather.Forecasts(self.provider, cache.Cache(self.folder.name))

    def tearDown(self):
        weather.OFFLINE, weather.FORECASTS, weather.call_host = self.saved
        self.folder.cleanup()

    def agenda(self, days, **arguments):
        weather.call_host = lambda method, params: {"from": "x", "to": "y", "timeZone": "UTC", "state": "1", "days": days}
        return weather.agenda({"from": "2026-11-18", "to": "2026-11-30", **arguments})

    def test_events_past_the_bound_of_places_say_too_many_places(self):
        events = [{"title": str(i), "locations": {"l": {"name": f"Room {i}"}}} for i in range(weather.MAX_EVENT_PLACES + 5)]
        events.append({"title": "oslo", "locations": {"l": {"name": "Oslo"}}})
        result = self.agenda([{"date": "2026-11-25", "events": events}])
        reasons = [event.get("reason") for event in result["days"][0]["events"]]
        self.assertEqual(reasons, ["unknownPlace"] * weather.MAX_EVENT_PLACES + ["tooManyPlaces"] * 6)
        self.assertEqual(len([a for a in self.provider.asked if a[0] == "geocode"]), 1 + weather.MAX_EVENT_PLACES)

    def test_without_an_archive_past_days_say_so(self):
        self.provider.archive_url = ""
        result = self.agenda([{"date": "2026-11-18", "events": []}, {"date": "2026-11-20", "events": []}])
        self.assertEqual(result["days"][0], {"date": "2026-11-18", "events": [], "forecast": None, "reason": "noArchive"})
        self.assertEqual(result["days"][1]["forecast"]["conditions"], "sunny")
        self.assertNotIn("archive", [a[0] for a in self.provider.asked])

    def test_an_unknown_home_place_is_an_error_not_a_forecast(self):
        with self.assertRaises(weather.ToolError) as caught:
            self.agenda([{"date": "2026-11-25", "events": []}], place="Atlantis")
        self.assertTrue(str(caught.exception).startswith("unknownPlace:"))


class HeldGeocoder(http.server.ThreadingHTTPServer):
    """A geocoder on 127.0.0.1 that holds its first answer until `release` is set, and counts every request."""

    def __init__(self):
        self.asked, self.release, self.paths = threading.Event(), threading.Event(), []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(handler):
                self.paths.append(handler.path.split("?")[0])
                self.asked.set()
                self.release.wait()
                body = json.dumps({"results": [{"name": "Berlin", "latitude": 52.52, "longitude": 13.41}]}).encode()
                handler.send_response(200)
                handler.send_header("Content-Type", "application/json")
                handler.send_header("Content-Length", str(len(body)))
                handler.end_headers()
                handler.wfile.write(body)

            def log_message(handler, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)


class Cancellation(unittest.TestCase):
    """A call the client cancels asks the provider nothing more and is not answered (MCP's rule)."""

    def test_a_cancelled_call_stops_before_its_next_request_and_is_not_answered(self):
        server = HeldGeocoder()
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        with tempfile.TemporaryDirectory() as folder:
            env = {"PATH": os.environ.get("PATH", ""), "HOME": folder, "WEATHER_DATA_DIR": folder,
                   "WEATHER_GEOCODING_URL": base + "/geocoding", "WEATHER_FORECAST_URL": base + "/forecast",
                   "WEATHER_ARCHIVE_URL": ""}
            plugin = subprocess.Popen([sys.executable, "-B", weather.__file__], env=env, text=True,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            try:
                def send(message):
                    plugin.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
                    plugin.stdin.flush()

                send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                                   "clientInfo": {"name": "test", "version": "1"}}})
                self.assertEqual(json.loads(plugin.stdout.readline())["id"], 1)
                send({"method": "notifications/initialized"})
                send({"id": 2, "method": "tools/call", "params": {"name": "forecast",
                                                                 "arguments": {"date": "2026-11-27", "place": "Berlin"}}})
                self.assertTrue(server.asked.wait(60), "the plugin never asked the geocoder")
                # The cancellation is in the pipe before the geocoder answers: the plugin sees it before its next request.
                send({"method": "notifications/cancelled", "params": {"requestId": 2, "reason": "test"}})
                server.release.set()
                send({"id": 3, "method": "ping"})
                answer = json.loads(plugin.stdout.readline())
                self.assertEqual(answer, {"jsonrpc": "2.0", "id": 3, "result": {}})
                self.assertEqual(server.paths, ["/geocoding"], "the forecast was asked after the cancellation")
            finally:
                plugin.stdin.close()
                plugin.wait()
                server.shutdown()
                server.server_close()


class Synthetic(unittest.TestCase):
    def test_deterministic_and_marked(self):
        first = weather.synthetic("2026-11-22", "Berlin")
        self.assertEqual(first, weather.synthetic("2026-11-22", "Berlin"))
        self.assertEqual(first["source"], "synthetic")
        self.assertLess(first["lowC"], first["highC"])


if __name__ == "__main__":
    unittest.main()

"""Open-Meteo (https://open-meteo.com, no key) through urllib: geocoding, the forecast, the archive.

Every failure is a `ProviderError` with a reason a user can act on (`unreachable`, `timeout`,
`rateLimited`, `providerError`, `badRequest`, `badAnswer`, `badSetting`); nothing here ever makes a forecast up.
"""
import http.client
import json
import math
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

FORECAST_URL = "https://api.open-meteo.com/v1/forecast"
GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
ARCHIVE_URL = "https://archive-api.open-meteo.com/v1/archive"
# The forecast API's window: 16 days from today, and the last 7 days (the archive lags about 5 days).
FORECAST_DAYS = 16
PAST_DAYS = 7
MAX_ANSWER_BYTES = 1 << 20
USER_AGENT = "switchboard-weather/2.0 (+https://open-meteo.com)"

# WMO weather interpretation codes (the `weather_code` Open-Meteo gives) → (conditions, description).
WMO_CODES = {
    0: ("sunny", "Clear sky"),
    1: ("sunny", "Mainly clear"),
    2: ("partly cloudy", "Partly cloudy"),
    3: ("cloudy", "Overcast"),
    45: ("fog", "Fog"),
    48: ("fog", "Depositing rime fog"),
    51: ("drizzle", "Light drizzle"),
    53: ("drizzle", "Moderate drizzle"),
    55: ("drizzle", "Dense drizzle"),
    56: ("drizzle", "Light freezing drizzle"),
    57: ("drizzle", "Dense freezing drizzle"),
    61: ("rain", "Slight rain"),
    63: ("rain", "Moderate rain"),
    65: ("rain", "Heavy rain"),
    66: ("rain", "Light freezing rain"),
    67: ("rain", "Heavy freezing rain"),
    71: ("snow", "Slight snow fall"),
    73: ("snow", "Moderate snow fall"),
    75: ("snow", "Heavy snow fall"),
    77: ("snow", "Snow grains"),
    80: ("showers", "Slight rain showers"),
    81: ("showers", "Moderate rain showers"),
    82: ("showers", "Violent rain showers"),
    85: ("snow showers", "Slight snow showers"),
    86: ("snow showers", "Heavy snow showers"),
    95: ("thunderstorm", "Thunderstorm"),
    96: ("thunderstorm", "Thunderstorm with slight hail"),
    99: ("thunderstorm", "Thunderstorm with heavy hail"),
}
CONDITIONS = sorted({conditions for conditions, _ in WMO_CODES.values()} | {"unknown"})
DAILY = "weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max,precipitation_sum"
ARCHIVE_DAILY = "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum"


class ProviderError(Exception):
    """A request the provider did not answer usefully; `reason` is one word, `str()` says what to do."""

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason


class Cancelled(Exception):
    """The client cancelled the call (`notifications/cancelled`): nothing more is asked, and no answer is sent."""


def excerpt(text, limit=100):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "…"


def conditions(code):
    """Our `conditions` and the WMO description for a weather code."""
    return WMO_CODES.get(code, ("unknown", f"WMO weather code {code}"))


class OpenMeteo:
    """The three APIs at the given base URLs (a mirror, or a test server, may stand in)."""

    def __init__(self, forecast_url=FORECAST_URL, geocoding_url=GEOCODING_URL, archive_url=ARCHIVE_URL, timeout=8.0):
        self.forecast_url = forecast_url
        self.geocoding_url = geocoding_url
        self.archive_url = archive_url  # "" when the provider has no archive
        self.timeout = timeout
        self.deadline = math.inf  # monotonic time by which the current tool call must be answered
        self.cancelled = lambda: False  # true once the current tool call was cancelled

    def get(self, base, params):
        """GET base?params as JSON; every way it can fail becomes a ProviderError."""
        parts = urllib.parse.urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ProviderError("badSetting", "a provider URL is not an http(s) URL; fix the plugin's env")
        host = parts.hostname
        try:
            if parts.port:
                host = f"{host}:{parts.port}"
        except ValueError:
            raise ProviderError("badSetting", f"the provider URL for {host} has a bad port; fix the plugin's env") from None
        if self.cancelled():
            raise Cancelled()
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise ProviderError("timeout", f"no answer from {host} in time: the call ran out of time; try again")
        url = base + ("&" if parts.query else "?") + urllib.parse.urlencode(params)
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=min(self.timeout, remaining)) as answer:
                body = answer.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as error:
            raise self.refusal(host, error) from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, (socket.timeout, TimeoutError)):
                raise ProviderError("timeout", f"{host} did not answer within {self.timeout:g} s; try again later") from None
            why = getattr(error.reason, "strerror", None) or excerpt(error.reason)
            raise ProviderError("unreachable", f"cannot reach {host} ({why}); check the network connection") from None
        except (socket.timeout, TimeoutError):
            raise ProviderError("timeout", f"{host} did not answer within {self.timeout:g} s; try again later") from None
        except OSError as error:
            why = error.strerror or excerpt(error)
            raise ProviderError("unreachable", f"cannot reach {host} ({why}); check the network connection") from None
        except http.client.HTTPException as error:
            raise ProviderError("unreachable", f"{host} broke off its answer ({type(error).__name__}); try again") from None
        except ValueError:
            raise ProviderError("badSetting", f"the provider URL for {host} is not a valid URL; fix the plugin's env") from None
        if len(body) > MAX_ANSWER_BYTES:
            raise ProviderError("badAnswer", f"{host} answered more than {MAX_ANSWER_BYTES} bytes")
        try:
            value = json.loads(body)
        except ValueError:
            raise ProviderError("badAnswer", f"{host} answered something that is not JSON") from None
        if not isinstance(value, dict):
            raise ProviderError("badAnswer", f"{host} answered JSON that is not an object")
        return value

    @staticmethod
    def refusal(host, error):
        try:
            reason = json.loads(error.read(4096)).get("reason")
        except (ValueError, AttributeError, OSError, http.client.HTTPException):
            reason = None
        said = f": {excerpt(reason)}" if isinstance(reason, str) else ""
        if error.code == 429:
            after = error.headers.get("Retry-After") if error.headers else None
            wait = f"in {excerpt(after, 20)} s" if after and after.strip().isdigit() else "later"
            return ProviderError("rateLimited", f"{host} is limiting requests (HTTP 429{said}); try again {wait}")
        if error.code >= 500:
            return ProviderError("providerError", f"{host} failed (HTTP {error.code}{said}); try again later")
        if error.code == 400:
            return ProviderError("badRequest", f"{host} refused the request (HTTP 400{said})")
        return ProviderError("providerError", f"{host} answered HTTP {error.code}{said}")

    def geocode(self, name):
        """The best match for a place name: {name, country?, region?, latitude, longitude, timeZone?}, or None."""
        answer = self.get(self.geocoding_url, {"name": name, "count": 1, "language": "en", "format": "json"})
        results = answer.get("results") or []
        if not isinstance(results, list):
            raise ProviderError("badAnswer", "the geocoding answer's results are not a list")
        if not results:
            return None
        hit = results[0]
        latitude, longitude = hit.get("latitude") if isinstance(hit, dict) else None, hit.get("longitude") if isinstance(hit, dict) else None
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (latitude, longitude)):
            raise ProviderError("badAnswer", "the geocoding answer has no coordinates")
        location = {"name": str(hit.get("name") or name), "latitude": latitude, "longitude": longitude}
        for member, ours in (("country", "country"), ("admin1", "region"), ("timezone", "timeZone")):
            if isinstance(hit.get(member), str):
                location[ours] = hit[member]
        return location

    def forecast_window(self, location):
        """Every day the forecast API has for a place now: {"first", "last", "days": {date: day}}."""
        answer = self.get(self.forecast_url, {**self.coordinates(location), "daily": DAILY, "timezone": "auto",
                                              "forecast_days": FORECAST_DAYS, "past_days": PAST_DAYS})
        days = self.daily(answer, "forecast")
        if not days:
            raise ProviderError("badAnswer", "the forecast answer has no days")
        dates = sorted(days)
        return {"first": dates[0], "last": dates[-1], "days": days}

    def archive(self, location, first, last):
        """The archive's days from first to last: {date: day}, None for days it has no values for yet."""
        answer = self.get(self.archive_url, {**self.coordinates(location), "daily": ARCHIVE_DAILY, "timezone": "auto",
                                             "start_date": first, "end_date": last})
        return self.daily(answer, "archive")

    @staticmethod
    def coordinates(location):
        return {"latitude": location["latitude"], "longitude": location["longitude"]}

    @staticmethod
    def daily(answer, basis):
        """The answer's `daily` columns as one entry per date; a day without temperatures or a code is None."""
        daily = answer.get("daily")
        if not isinstance(daily, dict) or not isinstance(daily.get("time"), list):
            raise ProviderError("badAnswer", "the answer has no daily values")
        dates = daily["time"]
        columns = {}
        for name in ("weather_code", "temperature_2m_max", "temperature_2m_min", "precipitation_probability_max",
                     "precipitation_sum"):
            column = daily.get(name)
            if column is None:
                column = [None] * len(dates)
            if not isinstance(column, list) or len(column) != len(dates):
                raise ProviderError("badAnswer", f"the answer's daily {name} does not match its days")
            columns[name] = column
        days = {}
        for index, date in enumerate(dates):
            if not isinstance(date, str) or len(date) != 10:
                raise ProviderError("badAnswer", "the answer's daily time is not a list of dates")
            code = columns["weather_code"][index]
            high, low = columns["temperature_2m_max"][index], columns["temperature_2m_min"][index]
            if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (code, high, low)):
                days[date] = None
                continue
            kind, description = conditions(int(code))
            day = {"conditions": kind, "description": description, "weatherCode": int(code),
                   "highC": high, "lowC": low, "basis": basis}
            chance, amount = columns["precipitation_probability_max"][index], columns["precipitation_sum"][index]
            if isinstance(chance, (int, float)) and not isinstance(chance, bool):
                day["precipitationChance"] = int(round(chance))
            if isinstance(amount, (int, float)) and not isinstance(amount, bool):
                day["precipitationMm"] = amount
            days[date] = day
        return days

"""Forecasts for places and dates: real ones from Open-Meteo through the cache, or synthetic ones.

`Forecasts.for_dates` answers, per date, a forecast or a reason there is none (`beyondHorizon`,
`noData`, `noArchive`); provider failures raise `ProviderError`, and a place the geocoder does not
know is `None` from `locate`. Nothing is ever made up in real mode.
"""
import hashlib

SYNTHETIC_CONDITIONS = ["sunny", "cloudy", "rain", "showers", "fog", "snow", "windy"]


def synthetic(date, place):
    """The deterministic stand-in: a hash of date and place (tests and demos, `--offline`)."""
    digest = hashlib.sha256(f"{date}|{place}".encode()).digest()
    high = digest[1] % 25
    return {"date": date, "place": place, "conditions": SYNTHETIC_CONDITIONS[digest[0] % len(SYNTHETIC_CONDITIONS)],
            "highC": high, "lowC": high - 2 - digest[2] % 8, "source": "synthetic"}


class Forecasts:
    """Open-Meteo's answers, each cached for an hour under the URL it came from: a place name's
    location, a place's forecast window (all its days in one answer), and an archived day of a place."""

    def __init__(self, provider, cache):
        self.provider = provider
        self.cache = cache

    def locate(self, name):
        """The location a place name stands for, or None when the geocoder knows no such place."""
        key = f"geocode|{self.provider.geocoding_url}|" + " ".join(name.split()).casefold()
        cached = self.cache.get(key)
        if isinstance(cached, dict):
            return cached.get("location")
        location = self.provider.geocode(name)
        self.cache.put(key, {"location": location})
        return location

    @staticmethod
    def spot(location):
        return f"{location['latitude']},{location['longitude']}"

    def window(self, location):
        key = f"forecast|{self.provider.forecast_url}|{self.spot(location)}"
        cached = self.cache.get(key)
        if isinstance(cached, dict) and isinstance(cached.get("days"), dict):
            return cached
        window = self.provider.forecast_window(location)
        self.cache.put(key, window)
        return window

    def archive_key(self, location, date):
        return f"archive|{self.provider.archive_url}|{self.spot(location)}|{date}"

    def archived(self, location, dates):
        """{date: day or None} for past dates, from the cache or one archive request for the rest."""
        found, missing = {}, []
        for date in dates:
            cached = self.cache.get(self.archive_key(location, date))
            if isinstance(cached, dict) and "day" in cached:
                found[date] = cached["day"]
            else:
                missing.append(date)
        if missing:
            days = self.provider.archive(location, min(missing), max(missing))
            for date in missing:
                found[date] = days.get(date)
                self.cache.put(self.archive_key(location, date), {"day": found[date]})
        return found

    def for_dates(self, location, place, dates):
        """{date: (forecast, None) or (None, reason)} for a located place."""
        window = self.window(location)
        answers, past = {}, []
        for date in sorted(set(dates)):
            if date > window["last"]:
                answers[date] = (None, "beyondHorizon")
            elif date >= window["first"]:
                answers[date] = self.dressed(window["days"].get(date), date, place, location)
            else:
                past.append(date)
        if past and not self.provider.archive_url:
            answers.update({date: (None, "noArchive") for date in past})
        elif past:
            for date, day in self.archived(location, past).items():
                answers[date] = self.dressed(day, date, place, location)
        return answers

    @staticmethod
    def dressed(day, date, place, location):
        if not isinstance(day, dict):
            return None, "noData"
        return {"date": date, "place": place, **day, "location": location, "source": "open-meteo"}, None


REASONS = {
    "beyondHorizon": "{date} is beyond the forecast's horizon (16 days from today)",
    "noData": "the provider has no values for {date} yet",
    "noArchive": "{date} is past, and the provider configured has no archive (WEATHER_ARCHIVE_URL is empty)",
    "unknownPlace": "no place called {place} is known to the geocoder; try a city name",
    "tooManyPlaces": "more event places than one agenda looks up",
}


def explain(reason, date="", place=""):
    return f"{reason}: " + REASONS.get(reason, reason).format(date=date, place=place)


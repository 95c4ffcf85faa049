#!/usr/bin/env python3
"""The calendar's independent oracle: agendas computed with Python's zoneinfo (the system tz database)
and dateutil.rrule, never with switchboard's code. Prints JSON: {"cases": [{name, now, event, agenda,
expected}]}; Tests/DomainTests/CalendarOracleTests.swift creates each event, asks calendar.agenda and
compares. Run by `swift test` (and so by scripts/test); needs python3-dateutil (scripts/bootstrap).

The rules it encodes are the definitions, not switchboard's arithmetic: a day is midnight to midnight
of the agenda's zone; a wall time that does not exist is read with the offset from before the gap and
one that exists twice is the first (PEP 495 fold=0, which is RFC 5545's rule); recurrences expand on
the wall clock of the event's zone; days and weeks of a duration are nominal, the rest exact."""
import json
import sys
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from dateutil import rrule as du

FREQ = {"yearly": du.YEARLY, "monthly": du.MONTHLY, "weekly": du.WEEKLY, "daily": du.DAILY}
DAYS = {"mo": du.MO, "tu": du.TU, "we": du.WE, "th": du.TH, "fr": du.FR, "sa": du.SA, "su": du.SU}


def local(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S")


def duration(text):
    """(nominal days, exact seconds) of the PnW / PnDTnHnMnS subset."""
    import re
    m = re.fullmatch(r"P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?", text)
    w, d, h, mi, s = (int(x) if x else 0 for x in m.groups())
    return 7 * w + d, 3600 * h + 60 * mi + s


def rule(r, start):
    kwargs = {"dtstart": start, "interval": r.get("interval", 1)}
    if "byDay" in r:
        kwargs["byweekday"] = [DAYS[d["day"]](d["nthOfPeriod"]) if "nthOfPeriod" in d else DAYS[d["day"]] for d in r["byDay"]]
    if "byMonthDay" in r:
        kwargs["bymonthday"] = r["byMonthDay"]
    if "byMonth" in r:
        kwargs["bymonth"] = [int(m) for m in r["byMonth"]]
    if "count" in r:
        kwargs["count"] = r["count"]
    if "until" in r:
        kwargs["until"] = local(r["until"])
    return du.rrule(FREQ[r["frequency"]], **kwargs)


def utc(wall, zone):
    """The instant `wall` (naive) shows in `zone`, fold=0."""
    return wall.replace(tzinfo=zone, fold=0).astimezone(timezone.utc)


def iso(instant):
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


def agenda(event, first, last, zone_name):
    view = ZoneInfo(zone_name)
    first, last = date.fromisoformat(first), date.fromisoformat(last)
    n = (last - first).days + 1
    starts = [utc(datetime.combine(first + timedelta(days=i), time()), view) for i in range(n + 1)]
    days = [{"date": (first + timedelta(days=i)).isoformat(), "lengthMinutes": int((starts[i + 1] - starts[i]).total_seconds() // 60),
             "events": []} for i in range(n)]
    start = local(event["start"])
    nominal, exact = duration(event.get("duration", "PT0S"))
    walls = {start}
    for r in event.get("recurrenceRules", []):
        walls |= set(rule(r, start).between(start - timedelta(days=1), datetime(2200, 1, 1), inc=True))
    if event.get("showWithoutTime"):
        for wall in sorted(walls):
            for k in range(max(nominal, 1)):
                d = wall.date() + timedelta(days=k)
                if first <= d <= last:
                    days[(d - first).days]["events"].append({"title": event["title"], "start": wall.strftime("%Y-%m-%dT%H:%M:%S"),
                                                             "continuing": k > 0, "endsAfterDay": k < max(nominal, 1) - 1})
        return days
    zone = ZoneInfo(event["timeZone"]) if event.get("timeZone") else view
    for wall in sorted(walls):  # two wall times can be one instant (a skipped day): both are occurrences
        s = utc(wall, zone)
        e = utc(wall + timedelta(days=nominal), zone) + timedelta(seconds=exact)
        for i in range(n):
            a, b = starts[i], starts[i + 1]
            if (s < b and e > a) or (e == s and a <= s < b):
                days[i]["events"].append({"title": event["title"], "startsAt": iso(s), "endsAt": iso(e),
                                          "continuing": s < a, "endsAfterDay": e > b})
    for day in days:
        day["events"].sort(key=lambda x: (x.get("startsAt", ""), x["title"]))
    return days


def case(name, now, event, first, last, zone):
    return {"name": name, "now": now, "event": event, "agenda": {"from": first, "to": last, "timeZone": zone},
            "expected": {"days": agenda(event, first, last, zone)}}


def weekly(day, **extra):
    return dict({"frequency": "weekly", "byDay": [{"day": day}]}, **extra)


CASES = [
    case("Berlin spring forward: a weekly 02:30 on the skipped hour is 03:30 CEST", "2026-03-01T00:00:00Z",
         {"title": "Night shift", "start": "2026-03-15T02:30:00", "timeZone": "Europe/Berlin", "duration": "PT1H",
          "recurrenceRules": [weekly("su")]}, "2026-03-21", "2026-04-06", "Europe/Berlin"),
    case("Berlin fall back: a daily 09:30 keeps its wall time across the 25-hour day, seen from UTC", "2026-10-01T00:00:00Z",
         {"title": "Stand-up", "start": "2026-10-20T09:30:00", "timeZone": "Europe/Berlin", "duration": "PT15M",
          "recurrenceRules": [{"frequency": "daily", "count": 12}]}, "2026-10-22", "2026-11-02", "UTC"),
    case("Berlin fall back: 02:30 exists twice and is the first", "2026-10-01T00:00:00Z",
         {"title": "Backup", "start": "2026-10-25T02:30:00", "timeZone": "Europe/Berlin", "duration": "PT30M"},
         "2026-10-24", "2026-10-26", "Europe/Berlin"),
    case("Last Sundays of March and October at 02:30 in Berlin, five years", "2026-06-01T00:00:00Z",
         {"title": "Clock check", "start": "2026-03-29T02:30:00", "timeZone": "Europe/Berlin", "duration": "PT1H",
          "recurrenceRules": [{"frequency": "monthly", "byDay": [{"day": "su", "nthOfPeriod": -1}], "byMonth": ["3", "10"]}]},
         "2026-03-01", "2028-10-31", "Europe/Berlin"),
    case("New York weekly 09:30 seen from Berlin while only one side has changed clocks", "2026-03-01T00:00:00Z",
         {"title": "NY sync", "start": "2026-02-23T09:30:00", "timeZone": "America/New_York", "duration": "PT1H",
          "recurrenceRules": [weekly("mo")]}, "2026-03-01", "2026-04-06", "Europe/Berlin"),
    case("New York in November: the 25-hour day and a meeting crossing midnight in Berlin", "2026-10-15T00:00:00Z",
         {"title": "Late review", "start": "2026-10-19T18:30:00", "timeZone": "America/New_York", "duration": "PT1H",
          "recurrenceRules": [weekly("mo")]}, "2026-10-18", "2026-11-10", "Europe/Berlin"),
    case("Lord Howe: half-hour shifts make 24.5- and 23.5-hour days", "2026-03-01T00:00:00Z",
         {"title": "Dawn walk", "start": "2026-03-30T01:45:00", "timeZone": "Australia/Lord_Howe", "duration": "PT30M",
          "recurrenceRules": [{"frequency": "daily"}]}, "2026-04-03", "2026-04-07", "Australia/Lord_Howe"),
    case("Lord Howe spring forward: 02:15 does not exist and is 02:45", "2026-09-01T00:00:00Z",
         {"title": "Early call", "start": "2026-10-01T02:15:00", "timeZone": "Australia/Lord_Howe", "duration": "PT30M",
          "recurrenceRules": [{"frequency": "daily", "count": 7}]}, "2026-10-01", "2026-10-07", "Australia/Lord_Howe"),
    case("Lord Howe seen from Berlin across both zones' changes", "2026-03-01T00:00:00Z",
         {"title": "Island call", "start": "2026-03-23T18:00:00", "timeZone": "Australia/Lord_Howe", "duration": "PT45M",
          "recurrenceRules": [weekly("mo")]}, "2026-03-22", "2026-04-14", "Europe/Berlin"),
    case("Samoa skipped 2011-12-30: the day has no length; a daily 09:00's occurrence of the 30th is at 09:00 on the 31st, beside the 31st's", "2011-12-01T00:00:00Z",
         {"title": "Morning swim", "start": "2011-12-27T09:00:00", "timeZone": "Pacific/Apia", "duration": "PT1H",
          "recurrenceRules": [{"frequency": "daily", "count": 8}]}, "2011-12-26", "2012-01-04", "Pacific/Apia"),
    case("Samoa's jump seen from Honolulu", "2011-12-01T00:00:00Z",
         {"title": "Apia evening", "start": "2011-12-28T19:00:00", "timeZone": "Pacific/Apia", "duration": "PT2H",
          "recurrenceRules": [{"frequency": "daily", "count": 6}]}, "2011-12-27", "2012-01-03", "Pacific/Honolulu"),
    case("29 February, yearly all-day: only leap years, on its date at +14", "2026-03-01T00:00:00Z",
         {"title": "Leap day", "start": "2024-02-29T00:00:00", "showWithoutTime": True, "duration": "P1D",
          "recurrenceRules": [{"frequency": "yearly"}]}, "2024-02-27", "2028-03-01", "Pacific/Kiritimati"),
    case("29 February, yearly all-day, on its date at -11 too", "2026-03-01T00:00:00Z",
         {"title": "Leap day", "start": "2024-02-29T00:00:00", "showWithoutTime": True, "duration": "P1D",
          "recurrenceRules": [{"frequency": "yearly"}]}, "2028-02-27", "2028-03-02", "Pacific/Pago_Pago"),
    case("29 February, yearly at 12:00 in Berlin", "2026-03-01T00:00:00Z",
         {"title": "Leap lunch", "start": "2024-02-29T12:00:00", "timeZone": "Europe/Berlin", "duration": "PT1H",
          "recurrenceRules": [{"frequency": "yearly", "byMonth": ["2"], "byMonthDay": [29]}]}, "2024-02-28", "2028-03-01", "Asia/Tokyo"),
    case("A five-day trip is five dates in Los Angeles", "2026-11-01T00:00:00Z",
         {"title": "Lisbon", "start": "2026-12-05T00:00:00", "showWithoutTime": True, "duration": "P5D"},
         "2026-12-03", "2026-12-11", "America/Los_Angeles"),
    case("A Berlin night crossing midnight, seen from Tokyo", "2026-11-01T00:00:00Z",
         {"title": "Release night", "start": "2026-11-20T22:00:00", "timeZone": "Europe/Berlin", "duration": "PT4H"},
         "2026-11-20", "2026-11-22", "Asia/Tokyo"),
    case("A Berlin night crossing midnight shows on both days, continuing on the second", "2026-11-01T00:00:00Z",
         {"title": "Release night", "start": "2026-11-20T22:00:00", "timeZone": "Europe/Berlin", "duration": "PT4H"},
         "2026-11-20", "2026-11-22", "Europe/Berlin"),
    case("A floating 08:00 is 08:00 wherever the agenda is", "2026-11-01T00:00:00Z",
         {"title": "Vitamins", "start": "2026-11-20T08:00:00", "duration": "PT0S",
          "recurrenceRules": [{"frequency": "daily", "count": 4}]}, "2026-11-19", "2026-11-24", "America/Sao_Paulo"),
    case("A nominal day across Berlin's fall back is 25 hours", "2026-10-01T00:00:00Z",
         {"title": "Retreat", "start": "2026-10-24T12:00:00", "timeZone": "Europe/Berlin", "duration": "P1DT2H"},
         "2026-10-23", "2026-10-27", "Europe/Berlin"),
    case("Monthly on the 31st skips short months", "2026-06-01T00:00:00Z",
         {"title": "Month end", "start": "2026-01-31T17:00:00", "timeZone": "America/New_York", "duration": "PT1H",
          "recurrenceRules": [{"frequency": "monthly", "byMonthDay": [31]}]}, "2026-01-30", "2026-08-02", "America/New_York"),
    case("Sydney Thursdays 08:00 seen from Berlin across both April changes", "2026-03-01T00:00:00Z",
         {"title": "Sydney sync", "start": "2026-03-05T08:00:00", "timeZone": "Australia/Sydney", "duration": "PT1H",
          "recurrenceRules": [weekly("th", interval=1)]}, "2026-03-01", "2026-04-20", "Europe/Berlin"),
]

if __name__ == "__main__":
    json.dump({"tzdata": "system zoneinfo via Python " + sys.version.split()[0], "cases": CASES}, sys.stdout, indent=1)
    sys.stdout.write("\n")

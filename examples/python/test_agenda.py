"""The agenda with weather: the weather plugin's weather.agenda calls calendar.agenda back in the host."""
from conftest import MEMORY, PLUGINS

WEEK = {"from": "2026-01-05", "to": "2026-01-11", "timeZone": "Europe/Berlin"}


def test_a_week_of_agenda_each_day_with_its_forecast(start):
    host = start(*MEMORY, "--plugins", PLUGINS)
    agenda = host.call("weather.agenda", {**WEEK, "place": "Berlin"})
    assert [day["date"] for day in agenda["days"]] == [f"2026-01-{d:02}" for d in range(5, 12)]
    assert all(day["forecast"]["place"] == "Berlin" and day["forecast"]["date"] == day["date"] for day in agenda["days"])
    assert any(day["events"] for day in agenda["days"])


def test_the_plugin_adds_weather_to_the_calendars_own_agenda(start):
    host = start(*MEMORY, "--plugins", PLUGINS)
    calendar = host.call("calendar.agenda", WEEK)
    with_weather = host.call("weather.agenda", WEEK)
    assert with_weather["source"] == "synthetic"

    def without_forecasts(item):
        return {k: [without_forecasts(e) for e in v] if k == "events" else v for k, v in item.items() if k != "forecast"}
    assert [without_forecasts(day) for day in with_weather["days"]] == calendar["days"]


def test_a_date_the_tool_refuses_names_the_member(start):
    host = start(*MEMORY, "--plugins", PLUGINS)
    error = host.error("weather.agenda", {"from": "5 Jan", "to": "2026-01-11"})
    assert error.code == -32602 and "from" in str(error.data)

#if canImport(Glibc)
import Glibc
#endif
import Jansson
import SchemaTesting
import Testing

/// The weather plugin against recorded Open-Meteo answers served on 127.0.0.1 (``WeatherFixtureServer``),
/// through the built binary: the WMO mapping, the hour's cache, the 16-day horizon, the archive for past
/// days, each meeting place's forecast, and every error a user can act on. Every answer is checked
/// against the schema the host's own `rpc.discover` gives the plugin's tools.
@Suite("The weather plugin on fixture answers in Open-Meteo's format (binary)", .serialized, .offCooperativePool)
struct WeatherPluginBinaryTests {
    static let now = ["--backend", "memory", "--now", "2026-11-26T09:00:00Z", "--calendar-events", "0"]

    /// Calls `method` and checks the answer against its schema.
    static func call(_ host: SpawnedHost, _ schemas: AnswerSchemas, _ id: Int, _ method: String, _ params: String) throws -> JSONValue {
        let answer = try PluginShippedTests.call(host, id, method, params)
        #expect(schemas.problems(in: answer, answering: method) == [], "\(answer)")
        return answer
    }

    static func schemas(_ host: SpawnedHost) throws -> AnswerSchemas {
        try AnswerSchemas(openRPC: try PluginShippedTests.call(host, 999, "rpc.discover")["result"] ?? .null)
    }

    @Test("weather.forecast maps Open-Meteo's day (WMO code → conditions) and caches it for an hour, also across a restart")
    func mapsAndCaches() throws {
        let server = try WeatherFixtureServer()
        let data = server.folder + "/data"
        let plugins = try server.addPlugin("weather", base: server.base("ok"), data: data)
        let host = try SpawnedHost(arguments: ["serve", "--plugins", plugins] + Self.now)
        let schemas = try Self.schemas(host)
        let answer = try Self.call(host, schemas, 1, "weather.forecast", #"{"date":"2026-11-28","place":"Berlin"}"#)
        let forecast = try #require(answer["result"], "\(answer)")
        #expect(forecast["source"] == "open-meteo" && forecast["basis"] == "forecast")
        #expect(forecast["date"] == "2026-11-28" && forecast["place"] == "Berlin")
        // forecast.json's 2026-11-28: weather_code 63, 5.0 / 1.1 °C, 78 %, 6.8 mm.
        #expect(forecast["conditions"] == "rain" && forecast["description"] == "Moderate rain" && forecast["weatherCode"] == 63)
        #expect(forecast["highC"]?.doubleValue == 5.0 && forecast["lowC"]?.doubleValue == 1.1)
        #expect(forecast["precipitationChance"] == 78 && forecast["precipitationMm"]?.doubleValue == 6.8)
        #expect(forecast["location"]?["name"] == "Berlin" && forecast["location"]?["country"] == "Germany")
        #expect(forecast["location"]?["latitude"]?.doubleValue == 52.52437)
        let asked = server.requests()
        #expect(asked.count == 2, "\(asked)")
        #expect(asked.first?.hasPrefix("/ok/v1/search?name=Berlin&") == true)
        let window = try #require(asked.last)
        for part in ["/ok/v1/forecast?", "latitude=52.52437", "longitude=13.41053", "forecast_days=16", "past_days=7", "timezone=auto",
                     "daily=weather_code%2Ctemperature_2m_max%2Ctemperature_2m_min%2Cprecipitation_probability_max%2Cprecipitation_sum"] {
            #expect(window.contains(part), "\(window) lacks \(part)")
        }

        // Another day of the same place, the home place (no place given), and the resource: one window, cached.
        let other = try Self.call(host, schemas, 2, "weather.forecast", #"{"date":"2026-11-30"}"#)["result"]
        #expect(other?["conditions"] == "snow showers" && other?["place"] == "Berlin" && other?["highC"]?.doubleValue == -0.4)
        let resource = try PluginShippedTests.call(host, 3, "resources.read", #"{"uri":"weather://forecast/2026-11-22"}"#)
        let text = try #require(resource["result"]?["contents"]?.arrayValue?.first?["text"]?.stringValue, "\(resource)")
        #expect(try JSONValue(parsing: text)["conditions"] == "sunny")
        #expect(server.requests().count == 2)
        // The cache is on disk: a restarted plugin asks nothing either.
        #expect(try PluginShippedTests.call(host, 4, "plugins.restart", #"{"name":"weather"}"#)["result"]?["name"] == "weather")
        #expect(try Self.call(host, schemas, 5, "weather.forecast", #"{"date":"2026-11-28","place":"Berlin"}"#)["result"] == forecast)
        #expect(server.requests().count == 2, "\(server.requests())")
        // An hour later the place is looked up and its forecast fetched again.
        try WeatherFixtureServer.age(cacheIn: data, by: 3601)
        #expect(try Self.call(host, schemas, 6, "weather.forecast", #"{"date":"2026-11-28","place":"Berlin"}"#)["result"] == forecast)
        #expect(server.requests().count == 4, "\(server.requests())")
    }

    @Test("weather.agenda: each day the home place's forecast, each meeting its place's; beyondHorizon past 16 days; the archive for past days")
    func agendaPerDayAndMeeting() throws {
        let server = try WeatherFixtureServer()
        let plugins = try server.addPlugin("weather", base: server.base("ok"), data: server.folder + "/data")
        let host = try SpawnedHost(arguments: ["serve", "--plugins", plugins] + Self.now)
        let schemas = try Self.schemas(host)
        let events = [("Fjord walk", "2026-11-27T10:00:00", "Europe/Oslo", "Oslo"),
                      ("Kickoff", "2026-11-28T09:00:00", "Europe/Berlin", "Alexanderplatz 1, Berlin"),
                      ("Offsite", "2026-11-29T09:00:00", "Europe/Berlin", "Nowhere 4"),
                      ("Ski trip", "2026-12-12T08:00:00", "Europe/Oslo", "Oslo"),
                      ("Retro", "2026-11-12T15:00:00", "Europe/Oslo", "Oslo")]
        for (index, (title, start, zone, place)) in events.enumerated() {
            let created = try PluginShippedTests.call(host, 10 + index, "calendar.create", """
                {"title":"\(title)","start":"\(start)","timeZone":"\(zone)","duration":"PT1H","locations":{"l1":{"name":"\(place)"}}}
                """)
            #expect(created["result"] != nil, "\(created)")
        }
        let answer = try Self.call(host, schemas, 1, "weather.agenda",
                                   #"{"from":"2026-11-10","to":"2026-12-13","timeZone":"Europe/Berlin","place":"Berlin"}"#)
        let result = try #require(answer["result"], "\(answer)")
        #expect(result["source"] == "open-meteo" && result["place"] == "Berlin")
        let days = try #require(result["days"]?.arrayValue)
        #expect(days.count == 34)
        func day(_ date: String) -> JSONValue? { days.first { $0["date"] == .string(date) } }
        func event(_ title: String) -> JSONValue? {
            days.lazy.compactMap { $0["events"]?.arrayValue?.first { $0["title"] == .string(title) } }.first
        }
        // The window (2026-11-19...2026-12-11): forecast days; after it none is made up.
        #expect(day("2026-11-28")?["forecast"]?["conditions"] == "rain" && day("2026-11-28")?["forecast"]?["place"] == "Berlin")
        #expect(day("2026-12-11")?["forecast"]?["weatherCode"] == 3)
        for date in ["2026-12-12", "2026-12-13"] {
            #expect(day(date)?["forecast"] == .null && day(date)?["reason"] == "beyondHorizon", "\(String(describing: day(date)))")
        }
        // Before the window: the archive; its last day has no values yet.
        #expect(day("2026-11-12")?["forecast"]?["basis"] == "archive" && day("2026-11-12")?["forecast"]?["highC"]?.doubleValue == 7.9)
        #expect(day("2026-11-18")?["forecast"] == .null && day("2026-11-18")?["reason"] == "noData")
        // Meetings: their own place, by the location's name or its last comma-separated part.
        #expect(event("Fjord walk")?["forecast"]?["place"] == "Oslo" && event("Fjord walk")?["forecast"]?["location"]?["country"] == "Norway")
        #expect(event("Fjord walk")?["forecast"]?["date"] == "2026-11-27" && event("Fjord walk")?["forecast"]?["conditions"] == "cloudy")
        #expect(event("Kickoff")?["forecast"]?["place"] == "Berlin" && event("Kickoff")?["forecast"]?["location"]?["name"] == "Berlin")
        #expect(event("Offsite")?["forecast"] == .null && event("Offsite")?["reason"] == "unknownPlace")
        #expect(event("Ski trip")?["forecast"] == .null && event("Ski trip")?["reason"] == "beyondHorizon")
        #expect(event("Retro")?["forecast"]?["basis"] == "archive" && event("Retro")?["forecast"]?["place"] == "Oslo")
        // One window and one archive range per place, whatever the number of days and meetings.
        let asked = server.requests()
        #expect(asked.filter { $0.contains("/v1/forecast?") }.count == 2, "\(asked)")
        let archive = asked.filter { $0.contains("/v1/archive?") }
        #expect(archive.count == 2, "\(asked)")
        #expect(archive.contains { $0.contains("latitude=52.52437") && $0.contains("start_date=2026-11-10&end_date=2026-11-18") }, "\(archive)")
        // Asked again within the hour: all of it from the cache, unknown places too.
        #expect(try Self.call(host, schemas, 2, "weather.agenda",
                              #"{"from":"2026-11-10","to":"2026-12-13","timeZone":"Europe/Berlin","place":"Berlin"}"#)["result"] == result)
        #expect(server.requests() == asked)
    }

    @Test("No network, a timeout, a 429, a 500 and an unknown place are tool errors (-32071) saying why, never a forecast")
    func errorsAUserCanActOn() throws {
        let server = try WeatherFixtureServer()
        let data = server.folder + "/data"
        try server.addPlugin("limited", base: server.base("429"), data: data)
        try server.addPlugin("broken", base: server.base("500"), data: data)
        try server.addPlugin("silent", base: "http://127.0.0.1:\(server.silentPort)", data: data, timeoutSeconds: "1")
        try server.addPlugin("down", base: "http://127.0.0.1:\(server.closedPort)", data: data)
        let plugins = try server.addPlugin("weather", base: server.base("ok"), data: data)
        let host = try SpawnedHost(arguments: ["serve", "--plugins", plugins] + Self.now)
        let schemas = try Self.schemas(host)
        let cases = [("limited", "rateLimited:", "try again in 60 s"), ("broken", "providerError:", "HTTP 500"),
                     ("silent", "timeout:", "did not answer within 1 s"), ("down", "unreachable:", "check the network connection"),
                     ("weather", "unknownPlace:", "Atlantis")]
        for (index, (namespace, reason, detail)) in cases.enumerated() {
            let place = namespace == "weather" ? "Atlantis" : "Berlin"
            for (offset, (tool, params)) in [("forecast", #"{"date":"2026-11-28","place":"\#(place)"}"#),
                                             ("agenda", #"{"from":"2026-11-27","to":"2026-11-28","place":"\#(place)"}"#)].enumerated() {
                let answer = try Self.call(host, schemas, 10 * index + offset, "\(namespace).\(tool)", params)
                let error = try #require(answer["error"], "\(namespace).\(tool) answered \(answer)")
                #expect(error["code"] == -32071 && error["data"]?["reason"] == "toolError", "\(error)")
                let message = try #require(error["message"]?.stringValue)
                #expect(message.hasPrefix("Tool \(tool) failed: \(reason)") && message.contains(detail), "\(message)")
            }
        }
        // The provider answered no forecast, so nothing was cached: the 429 and 500 are asked again.
        let before = server.requests().filter { $0.hasPrefix("/429/") }.count
        _ = try Self.call(host, schemas, 100, "limited.forecast", #"{"date":"2026-11-28","place":"Berlin"}"#)
        #expect(server.requests().filter { $0.hasPrefix("/429/") }.count == before + 1)
    }

    @Test("--offline answers the deterministic forecasts, source synthetic, and asks the provider nothing")
    func offlineIsSyntheticAndQuiet() throws {
        let server = try WeatherFixtureServer()
        let plugins = try server.addPlugin("weather", base: server.base("ok"), data: server.folder + "/data", arguments: ["--offline"])
        let host = try SpawnedHost(arguments: ["serve", "--plugins", plugins] + Self.now)
        let schemas = try Self.schemas(host)
        let first = try Self.call(host, schemas, 1, "weather.forecast", #"{"date":"2027-05-01","place":"Atlantis"}"#)["result"]
        #expect(first?["source"] == "synthetic" && first?["place"] == "Atlantis")
        #expect(try Self.call(host, schemas, 2, "weather.forecast", #"{"date":"2027-05-01","place":"Atlantis"}"#)["result"] == first)
        let agenda = try Self.call(host, schemas, 3, "weather.agenda", #"{"from":"2026-11-26","to":"2026-12-31"}"#)["result"]
        let days = agenda?["days"]?.arrayValue ?? []
        #expect(agenda?["source"] == "synthetic" && days.count == 36)
        #expect(days.allSatisfy { $0["forecast"]?["source"] == "synthetic" })
        #expect(server.requests() == [])
    }
}

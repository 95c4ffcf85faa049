#!/usr/bin/env bash
# A week's agenda with each day's weather: weather.agenda, a tool of the weather plugin, which reads
# calendar.agenda back from the host and adds each day's forecast, and each meeting's at its place.
#   agenda.sh [host options…]          e.g. agenda.sh --plugins path/to/Plugins --backend memory
#   FROM=2026-01-05 DAYS=7 TZ_NAME=Europe/Berlin PLACE=Berlin agenda.sh …
# Times are the agenda zone's (an event in Tokyo at 10:45 shows at 02:45 in Berlin).
# The weather plugin must be where the host finds plugins: --plugins DIR, or
# ~/.config/switchboard/plugins/weather. Needs `switchboard` on PATH (scripts/install) and jq.
set -euo pipefail
from=${FROM:-$(date +%F)}
to=$(date -d "$from + $((${DAYS:-7} - 1)) days" +%F)
zone=${TZ_NAME:-Europe/Berlin}
jq -nc --arg from "$from" --arg to "$to" --arg zone "$zone" --arg place "${PLACE:-Berlin}" \
  '{jsonrpc: "2.0", id: 1, method: "weather.agenda", params: {from: $from, to: $to, timeZone: $zone, place: $place}}' \
  | switchboard serve "$@" \
  | TZ="$zone" jq -er 'select(.id == 1) | if .error then error(.error.message) else .result.days[] end
            | "\(.date)  " + if .forecast then "\(.forecast.conditions), \(.forecast.lowC | round) to \(.forecast.highC | round) °C"
                              else "no forecast (\(.reason))" end,
              (.events[] | "  \(if .showWithoutTime then "all day" elif .continuing then "cont."
                                else .startsAt | fromdateiso8601 | strflocaltime("%H:%M") end)  \(.title)"
                            + if .forecast then " (\(.forecast.place): \(.forecast.conditions))" else "" end)'

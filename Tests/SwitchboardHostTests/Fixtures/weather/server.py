#!/usr/bin/env python3
"""A stand-in for Open-Meteo on 127.0.0.1, serving the recorded answers beside this file.

    server.py LOG     prints {"port", "silentPort", "closedPort"} as one line, then serves until stdin closes.

The first path segment says how to answer, so one server plays every case:
  /ok/v1/search?name=N   geocoding/N.json (a hit), else geocoding-unknown.json (no such place)
  /ok/v1/forecast        forecast.json        /ok/v1/archive   archive.json
  /429/…                 429.json with status 429 and Retry-After: 60
  /500/…                 500.json with status 500
`silentPort` accepts connections and never answers (a timeout); `closedPort` has nobody listening
(no network). Each request is appended to LOG as its path and query before it is answered, so once the
plugin has answered, LOG holds every request it made.
"""
import json
import os
import socket
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = sys.argv[1]
lock = threading.Lock()


def fixture(name):
    with open(os.path.join(HERE, name), "rb") as file:
        return file.read()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        with lock, open(LOG, "a") as log:
            log.write(self.path + "\n")
        parts = urllib.parse.urlsplit(self.path)
        mode, _, api = parts.path.lstrip("/").partition("/")
        query = urllib.parse.parse_qs(parts.query)
        status, body, headers = 404, b'{"error":true,"reason":"Not found"}', {}
        if mode == "429":
            status, body, headers = 429, fixture("429.json"), {"Retry-After": "60"}
        elif mode == "500":
            status, body = 500, fixture("500.json")
        elif mode == "ok" and api == "v1/search":
            name = query.get("name", [""])[0]
            hit = os.path.join("geocoding", name + ".json")
            status, body = 200, fixture(hit if name.isalpha() and os.path.exists(os.path.join(HERE, hit)) else "geocoding-unknown.json")
        elif mode == "ok" and api == "v1/forecast":
            status, body = 200, fixture("forecast.json")
        elif mode == "ok" and api == "v1/archive":
            status, body = 200, fixture("archive.json")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass  # LOG has the requests; stderr stays quiet


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # never accepted: connections complete in the backlog and hear nothing
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"port": server.server_address[1], "silentPort": silent.getsockname()[1], "closedPort": closed_port}),
          flush=True)
    sys.stdin.read()  # until the test closes our stdin (or ends)
    os._exit(0)


if __name__ == "__main__":
    main()

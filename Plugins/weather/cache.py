"""The weather plugin's answer cache: one small JSON file per key in the plugin's data folder.

An entry is fresh for `ttl` seconds after it was written (the file's modification time), so a
forecast is asked of the provider at most once an hour per place, also across restarts and across
hosts sharing the folder. Writes go to a temporary file renamed into place (readers never see half a
file); a folder that cannot be written only costs the caching, never an answer.
"""
import hashlib
import json
import os
import sys
import tempfile
import time

HOUR = 3600
MAX_ENTRY_BYTES = 1 << 20
# Entries older than this are removed when the cache opens, so the folder does not grow without bound.
PRUNE_AFTER = 7 * 24 * HOUR
PRUNE_SCAN = 10_000


def data_folder(environ):
    """`WEATHER_DATA_DIR`, else `$XDG_DATA_HOME/switchboard/plugins/weather`, else
    `~/.local/share/switchboard/plugins/weather`."""
    if environ.get("WEATHER_DATA_DIR"):
        return environ["WEATHER_DATA_DIR"]
    base = environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "switchboard", "plugins", "weather")


class Cache:
    def __init__(self, folder, ttl=HOUR):
        self.folder = os.path.join(folder, "cache")
        self.ttl = ttl
        self.warned = False
        self.prune()

    def path(self, key):
        return os.path.join(self.folder, hashlib.sha256(key.encode()).hexdigest()[:40] + ".json")

    def get(self, key):
        """The value stored under `key` if it is fresh, else None."""
        path = self.path(key)
        try:
            with open(path, "rb") as file:
                if time.time() - os.fstat(file.fileno()).st_mtime >= self.ttl:
                    return None
                entry = json.loads(file.read(MAX_ENTRY_BYTES + 1))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None  # a hash collision, or a file not ours
        return entry.get("value")

    def put(self, key, value):
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(dir=self.folder, prefix=".entry-")
            with os.fdopen(descriptor, "w") as file:
                json.dump({"key": key, "value": value}, file, separators=(",", ":"))
            os.replace(temporary, self.path(key))
        except OSError as error:
            if not self.warned:  # the folder's path is ours, not a secret; the error names no content
                print(f"weather: cannot write the cache in {self.folder}: {error.strerror}", file=sys.stderr)
                self.warned = True

    def prune(self):
        try:
            entries = os.scandir(self.folder)
        except OSError:
            return
        now = time.time()
        with entries:
            for count, entry in enumerate(entries):
                if count >= PRUNE_SCAN:
                    break
                try:
                    if now - entry.stat().st_mtime > PRUNE_AFTER:
                        os.unlink(entry.path)
                except OSError:
                    pass

"""Fixtures: the binary (`$SWITCHBOARD`, else `switchboard` on PATH), its schemas, and hosts to drive."""
import os
import shutil
from pathlib import Path

import pytest

from schemas import Schemas
from switchboard_client import Host

NOW = "2026-01-01T09:00:00Z"
# Deterministic data: fixtures in memory, the clock fixed.
MEMORY = ("--backend", "memory", "--now", NOW)
# The repository's plugins (weather, words): their tools are methods too. The weather plugin answers its
# deterministic forecasts (source "synthetic"), asking no network.
PLUGINS = str(Path(__file__).resolve().parents[2] / "Plugins")
os.environ["WEATHER_OFFLINE"] = "1"


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("SWITCHBOARD") or shutil.which("switchboard")
    if not path:
        pytest.fail("no switchboard: set SWITCHBOARD or put it on PATH (scripts/install)")
    return path


@pytest.fixture(scope="session")
def schemas(binary):
    """The host's own description of every answer and notification, from `rpc.discover` (plugins included)."""
    host = Host(binary, *MEMORY, "--plugins", PLUGINS)
    document = host.call("rpc.discover")
    assert host.close() == 0
    schemas = Schemas(document)
    # The description describes itself too.
    assert schemas.problems({"jsonrpc": "2.0", "id": 1, "result": document}, answering="rpc.discover") == []
    return schemas


@pytest.fixture
def start(binary, schemas):
    """Starts hosts with the given arguments; each must have sent only valid messages and exit 0."""
    hosts = []

    def start_host(*arguments):
        host = Host(binary, *arguments, schemas=schemas)
        hosts.append(host)
        return host

    yield start_host
    for host in hosts:
        status = host.close()
        assert host.problems == [], "\n".join(host.problems)
        assert status == 0, host.stderr

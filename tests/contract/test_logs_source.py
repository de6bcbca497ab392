"""One contract for LogsSource, run against the world fixture, a Loki-shaped HTTP server, the host's
log files and the systemd journal, all serving the same world's lines.

Every backend serves the same neutral `LogQuery`; the Loki client translates it to LogQL itself, and a
native query (LogQL) passes through to Loki untouched. Loki is not packaged in Debian:
tests/support/loki.py answers with Loki's documented response shapes from the same world, so the
real client's HTTP, parameters and parsing are exercised. The file source reads the world's lines
written as JSON lines, one file per service, the older half of each in a rotated `.1` file. The
journal source reads a real journal file, written from the world's lines (Journal Export Format) by
systemd-journal-remote and read by the real `journalctl --file`; journald itself never runs here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from tests.conftest import IN_CI
from tests.support.loki import FakeLoki, running_loki
from tests.support.world_builder import FATAL_LINE, TIMEOUT_PHRASE, build_contract_world
from tools.base import EvidenceStatus, LogQuery, LogsSource, SourceError, TimeWindow
from tools.logfiles import Journal, LogFiles
from tools.loki import LokiClient, LokiFixture
from tools.world import World, load_world
from tools.world.models import WorldLogLine

JOURNAL_REMOTE = Path("/usr/lib/systemd/systemd-journal-remote")
PRIORITY = {"fatal": 2, "error": 3, "warn": 4, "info": 6}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    built = build_contract_world(tmp_path_factory.mktemp("world"), datetime.now(UTC))
    return load_world(built.path)


@pytest.fixture(scope="module")
def loki(world: World) -> Iterator[FakeLoki]:
    with running_loki(world) as server:
        yield server


@pytest.fixture(scope="module")
def log_dir(world: World, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The world's lines as JSON-lines files, `<service>.jsonl` (newer half) and `<service>.jsonl.1`."""
    directory = tmp_path_factory.mktemp("logs")
    raw = [json.loads(text) for text in (world.root / "logs.jsonl").read_text().splitlines() if text]
    for service in {line["service"] for line in raw}:
        lines = [line for line in raw if line["service"] == service]
        half = len(lines) // 2
        rotated, current = directory / f"{service}.jsonl.1", directory / f"{service}.jsonl"
        rotated.write_text("".join(json.dumps(line) + "\n" for line in lines[:half]))
        current.write_text("".join(json.dumps(line) + "\n" for line in lines[half:]))
        # A rotated file was last written when its last line was.
        last_written = datetime.fromisoformat(lines[half - 1]["ts"]).timestamp()
        os.utime(rotated, (last_written, last_written))
    return directory


@pytest.fixture(scope="module")
def journal_file(world: World, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real journal file holding the world's lines, one unit per service."""
    if not JOURNAL_REMOTE.exists() or shutil.which("journalctl") is None:
        message = f"{JOURNAL_REMOTE} and journalctl are needed to write and read a journal file"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    path = tmp_path_factory.mktemp("journal") / "world.journal"
    export = b"".join(_exported(line, index) for index, line in enumerate(world.logs))
    command = [str(JOURNAL_REMOTE), f"--output={path}", "-"]
    subprocess.run(command, input=export, check=True, capture_output=True)
    return path


def _exported(line: WorldLogLine, index: int) -> bytes:
    """One entry in Journal Export Format; MESSAGE in the binary form, which any text may take."""
    fields = {
        "__REALTIME_TIMESTAMP": str(int(line.ts.timestamp() * 1_000_000)),
        "__MONOTONIC_TIMESTAMP": str(index + 1),
        "_BOOT_ID": "0123456789abcdef0123456789abcdef",
        "_SYSTEMD_UNIT": f"{line.service}.service",
        "PRIORITY": str(PRIORITY[line.level]),
        "_HOSTNAME": line.labels()["host"],
    }
    message = line.message.encode()
    text = "".join(f"{name}={value}\n" for name, value in fields.items()).encode()
    return text + b"MESSAGE\n" + len(message).to_bytes(8, "little") + message + b"\n\n"


@pytest.fixture(
    params=[
        "fixture",
        pytest.param("loki", marks=pytest.mark.loki),
        "files",
        "journal",
    ]
)
async def source(request: pytest.FixtureRequest, world: World) -> AsyncIterator[LogsSource]:
    if request.param == "fixture":
        yield LokiFixture(world)
        return
    if request.param == "files":
        directory: Path = request.getfixturevalue("log_dir")
        yield LogFiles({service: str(directory / f"{service}.jsonl") for service in ("ledger", "relay")})
        return
    if request.param == "journal":
        yield LogFiles({}, journal=Journal(request.getfixturevalue("journal_file")))
        return
    server: FakeLoki = request.getfixturevalue("loki")
    async with httpx.AsyncClient() as client:
        yield LokiClient(client, server.url)


def last(world: World, minutes: int) -> TimeWindow:
    return TimeWindow(start=world.now - timedelta(minutes=minutes), end=world.now)


@pytest.fixture
async def loki_source(loki: FakeLoki) -> AsyncIterator[LokiClient]:
    async with httpx.AsyncClient() as client:
        yield LokiClient(client, loki.url)


def native(logql: str, window: TimeWindow, limit: int = 1_000) -> LogQuery:
    return LogQuery(window=window, limit=limit, native=logql)


def expected_lines(world: World, window: TimeWindow, service: str, level: str | None = None) -> int:
    return sum(
        1
        for line in world.logs
        if line.service == service
        and (level is None or line.level == level)
        and window.start <= line.ts < window.end
    )


async def test_source_is_healthy_and_tells_time(source: LogsSource, world: World) -> None:
    assert (await source.health()).ok
    assert (await source.now()) >= world.now


async def test_stream_selector_returns_newest_first(source: LogsSource, world: World) -> None:
    window = last(world, 60)

    lines = await source.query_range(LogQuery(window=window, limit=1_000, service="ledger"))

    assert len(lines) == expected_lines(world, window, "ledger")
    assert all(line.labels["service"] == "ledger" for line in lines)
    assert [line.ts for line in lines] == sorted((line.ts for line in lines), reverse=True)
    assert all(window.start <= line.ts < window.end for line in lines)
    assert all(line.ts.tzinfo is not None for line in lines)


async def test_scalar_fields_are_stream_labels(source: LogsSource, world: World) -> None:
    [line] = await source.query_range(LogQuery(window=last(world, 60), limit=1, service="relay"))

    assert set(line.labels) == {"service", "level", "host"}  # `context` is not a scalar
    assert line.labels["host"] == "relay-1"


async def test_service_and_level_select_lines(source: LogsSource, world: World) -> None:
    window = last(world, 60)

    errors = await source.query_range(LogQuery(window=window, limit=1_000, service="ledger", level="error"))
    any_service_errors = await source.query_range(LogQuery(window=window, limit=1_000, level="error"))
    relay_info = await source.query_range(LogQuery(window=window, limit=1_000, service="relay", level="info"))

    assert len(errors) == expected_lines(world, window, "ledger", "error") > 0
    assert all(TIMEOUT_PHRASE in line.message for line in errors)
    # Error lines are error or worse: the relay's one fatal line is among them, and alone at "fatal".
    assert sorted(line.message for line in any_service_errors) == sorted(
        [*(line.message for line in errors), FATAL_LINE]
    )
    fatal = await source.query_range(LogQuery(window=window, limit=1_000, level="fatal"))
    assert [line.message for line in fatal] == [FATAL_LINE]
    assert {line.labels["service"] for line in relay_info} == {"relay"}
    assert len(relay_info) == expected_lines(world, window, "relay", "info")


async def test_contains_keeps_only_lines_with_the_text(source: LogsSource, world: World) -> None:
    window = last(world, 90)
    everything = await source.query_range(LogQuery(window=window, limit=1_000))

    lines = await source.query_range(LogQuery(window=window, limit=1_000, contains=TIMEOUT_PHRASE))

    assert lines
    assert lines == [line for line in everything if TIMEOUT_PHRASE in line.message]


async def test_contains_in_any_case_keeps_the_text_however_it_is_written(
    source: LogsSource, world: World
) -> None:
    window = last(world, 90)
    shouted = TIMEOUT_PHRASE.upper()
    exact = await source.query_range(LogQuery(window=window, limit=1_000, contains=TIMEOUT_PHRASE))

    any_case = await source.query_range(LogQuery(window=window, limit=1_000, contains=shouted, any_case=True))

    assert any_case and any_case == exact
    assert await source.query_range(LogQuery(window=window, limit=1_000, contains=shouted)) == []


async def test_a_status_class_keeps_only_lines_recording_such_a_status(
    source: LogsSource, world: World
) -> None:
    window = last(world, 90)
    everything = await source.query_range(LogQuery(window=window, limit=1_000, service="relay"))

    lines = await source.query_range(
        LogQuery(window=window, limit=1_000, service="relay", status_class="5xx")
    )

    assert lines and all('" 503 ' in line.message for line in lines)
    assert lines == [line for line in everything if '" 5' in line.message]
    assert not await source.query_range(
        LogQuery(window=window, limit=1_000, service="ledger", status_class="4xx")
    )


async def test_label_filters_keep_only_lines_with_those_labels(source: LogsSource, world: World) -> None:
    window = last(world, 90)
    everything = await source.query_range(LogQuery(window=window, limit=1_000, service="ledger"))

    lines = await source.query_range(
        LogQuery(window=window, limit=1_000, service="ledger", labels={"host": "ledger-2"})
    )

    assert lines and len(lines) < len(everything)
    assert lines == [line for line in everything if line.labels.get("host") == "ledger-2"]


async def test_native_label_matchers_select_streams(loki_source: LokiClient, world: World) -> None:
    window = last(world, 60)

    errors = await loki_source.query_range(native('{service="ledger", level="error"}', window))
    not_ledger = await loki_source.query_range(native('{service!="ledger", level=~"info|warn"}', window))
    regex = await loki_source.query_range(native('{service=~".+", level!~"info|warn"}', window))

    assert len(errors) == expected_lines(world, window, "ledger", "error") > 0
    assert all(TIMEOUT_PHRASE in line.message for line in errors)
    assert {line.labels["service"] for line in not_ledger} == {"relay"}
    relay_fatal = expected_lines(world, window, "relay", "fatal")
    assert len(not_ledger) == expected_lines(world, window, "relay") - relay_fatal
    assert sorted(line.message for line in regex) == sorted([*(line.message for line in errors), FATAL_LINE])


def has_timeout(text: str) -> bool:
    return TIMEOUT_PHRASE in text


def lacks_ok(text: str) -> bool:
    return "ok" not in text


def low_shard(text: str) -> bool:
    return bool(re.search(r"shard=[0-3]$", text))


def relay_without_size(text: str) -> bool:
    return "relay" in text and not re.search(r"size=\d+", text)


@pytest.mark.parametrize(
    ("logql", "services", "keeps"),
    [
        (f'{{service=~".+"}} |= "{TIMEOUT_PHRASE}"', {"ledger", "relay"}, has_timeout),
        ('{service="ledger"} != "ok"', {"ledger"}, lacks_ok),
        ('{service=~"ledger|relay"} |~ "shard=[0-3]$"', {"ledger", "relay"}, low_shard),
        ('{service="relay"} !~ "size=\\\\d+" |= "relay"', {"relay"}, relay_without_size),
    ],
)
async def test_native_line_filters_keep_only_matching_lines(
    loki_source: LokiClient,
    world: World,
    logql: str,
    services: set[str],
    keeps: Callable[[str], bool],
) -> None:
    window = last(world, 90)
    everything = await loki_source.query_range(LogQuery(window=window, limit=1_000))

    lines = await loki_source.query_range(native(logql, window))

    expected = [line for line in everything if line.labels["service"] in services and keeps(line.message)]
    assert lines
    assert lines == expected


async def test_limit_keeps_the_newest_lines(source: LogsSource, world: World) -> None:
    window = last(world, 60)
    everything = await source.query_range(LogQuery(window=window, limit=1_000))

    newest = await source.query_range(LogQuery(window=window, limit=5))

    assert newest == everything[:5]


async def test_oldest_first_keeps_the_windows_first_lines(source: LogsSource, world: World) -> None:
    window = last(world, 60)
    everything = await source.query_range(LogQuery(window=window, limit=1_000))

    oldest = await source.query_range(LogQuery(window=window, limit=5, oldest_first=True))

    assert len(everything) > 5
    assert oldest == list(reversed(everything))[:5]


async def test_window_outside_history_is_empty(source: LogsSource, world: World) -> None:
    before = TimeWindow(world.now - timedelta(days=2), world.now - timedelta(days=1))

    assert await source.query_range(LogQuery(window=before, limit=10, service="ledger")) == []


async def test_label_values_discover_streams(source: LogsSource, world: World) -> None:
    window = last(world, 60)

    assert await source.label_values(label="service", window=window, limit=10) == [
        "ledger",
        "relay",
    ]
    assert await source.label_values(label="level", window=window, limit=10) == [
        "error",
        "fatal",
        "info",
        "warn",
    ]
    assert await source.label_values(label="service", window=window, limit=1) == ["ledger"]
    assert await source.label_values(label="nothing_here", window=window, limit=10) == []


@pytest.mark.parametrize("logql", ['{service="ledger"', "service=ledger", '{service="ledger"} |= '])
async def test_malformed_native_query_is_rejected(source: LogsSource, world: World, logql: str) -> None:
    with pytest.raises(SourceError) as raised:
        await source.query_range(native(logql, last(world, 10), limit=10))

    assert raised.value.status is EvidenceStatus.REJECTED
    assert "syntax error" not in raised.value.public


async def test_client_asks_loki_backward_in_nanoseconds(loki: FakeLoki, world: World) -> None:
    window = last(world, 10)
    async with httpx.AsyncClient() as client:
        await LokiClient(client, loki.url).query_range(LogQuery(window=window, limit=7, service="relay"))

    sent = loki.requests[-1]
    assert sent["query"] == ['{service="relay"}']
    assert sent["direction"] == ["backward"]
    assert sent["limit"] == ["7"]
    assert int(sent["start"][0]) == int(window.start.timestamp()) * 1_000_000_000
    assert int(sent["end"][0]) == int(window.end.timestamp()) * 1_000_000_000


async def test_fixture_refuses_native_queries(world: World) -> None:
    for logql in ('sum(rate({service="ledger"}[5m]))', '{service="ledger"}'):
        with pytest.raises(SourceError, match="unsupported expression in fixture backend"):
            await LokiFixture(world).query_range(native(logql, last(world, 10), limit=10))


async def test_loki_metric_result_is_rejected() -> None:
    body = {"status": "success", "data": {"resultType": "matrix", "result": []}}
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=body))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(SourceError, match="only log queries") as raised:
            window = TimeWindow(datetime.now(UTC) - timedelta(minutes=5), datetime.now(UTC))
            await LokiClient(client, "http://loki.invalid").query_range(
                native('rate({a="b"}[1m])', window, limit=5)
            )

    assert raised.value.status is EvidenceStatus.REJECTED

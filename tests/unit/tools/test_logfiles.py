"""The file logs source on temporary files: each format's time, level and whole multi-line entries,
rotation (`.1`, `.gz`), the window, level, contains and limit filters, and reads bounded from the end."""

from __future__ import annotations

import gzip
import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from api.backends import build_sources
from api.settings import Settings
from tools.base import EvidenceStatus, LogQuery, SourceError, TimeWindow
from tools.logfiles import LogFiles
from tools.logfiles.client import _read_stream, _Stream
from tools.logfiles.formats import detect
from tools.logfiles.journal import to_line
from tools.logfiles.tail import Budget, chains
from tools.loki import LokiClient

NOW = datetime.now(UTC).replace(microsecond=0)
LOCAL = NOW.astimezone()  # zone-less formats are written in the host's local time
WIDE = TimeWindow(NOW - timedelta(days=2), NOW + timedelta(minutes=1))


def at(minutes_ago: float) -> datetime:
    return NOW - timedelta(minutes=minutes_ago)


def local(minutes_ago: float, pattern: str) -> str:
    return (LOCAL - timedelta(minutes=minutes_ago)).strftime(pattern)


def write(path: Path, text: str, *, mtime: datetime | None = None) -> Path:
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime.timestamp(), mtime.timestamp()))
    return path


async def read(path: Path, **filters: object) -> list[tuple[datetime, str, str]]:
    window = filters.pop("window", WIDE)
    limit = filters.pop("limit", 100)
    source = LogFiles({"svc": str(path)})
    query = LogQuery(window=window, limit=limit, service="svc", **filters)  # type: ignore[arg-type]
    return [(line.ts, line.labels["level"], line.message) for line in await source.query_range(query)]


def pg_line(minutes_ago: float, severity: str, text: str) -> str:
    stamp = (NOW - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return f"{stamp} UTC [4242] {severity}:  {text}\n"


async def test_postgresql_entries_keep_detail_and_statement_lines(tmp_path: Path) -> None:
    log = write(
        tmp_path / "postgresql.log",
        pg_line(3, "LOG", "database system is ready to accept connections")
        + pg_line(2, "LOG", "process 4242 still waiting for ShareLock on transaction 731 after 100.045 ms")
        + pg_line(2, "DETAIL", "Process holding the lock: 4100. Wait queue: 4242.")
        + pg_line(2, "STATEMENT", "UPDATE orders SET status = 'paid'\n\tWHERE id = 1")
        + pg_line(1, "FATAL", 'password authentication failed for user "app"')
        + pg_line(
            1, "DETAIL", 'Connection matched pg_hba.conf line 2: "host all all 127.0.0.1/32 scram-sha-256"'
        ),
    )

    entries = await read(log)

    assert [level for _, level, _ in entries] == ["fatal", "info", "info"]
    fatal, waiting, ready = entries
    assert fatal[0] == at(1).replace(microsecond=fatal[0].microsecond)
    assert "Connection matched pg_hba.conf line 2" in fatal[2]
    assert waiting[2].count("\n") == 3  # DETAIL, STATEMENT and the statement's own second line
    assert "Wait queue: 4242." in waiting[2] and waiting[2].endswith("\tWHERE id = 1")
    assert "ready to accept connections" in ready[2]


async def test_json_lines_with_a_stack_trace_are_one_entry(tmp_path: Path) -> None:
    lines = [
        {"ts": at(5).isoformat(), "level": "INFO", "msg": "charge ok", "order": 7},
        {"time": at(4).isoformat(), "severity": "ERROR", "message": "payment gateway certificate expired"},
    ]
    trace = 'Traceback (most recent call last):\n  File "pay.py", line 3\nssl.SSLError: expired\n'
    log = write(tmp_path / "app.jsonl", "".join(json.dumps(line) + "\n" for line in lines) + trace)

    entries = await read(log)

    assert [(ts, level) for ts, level, _ in entries] == [(at(4), "error"), (at(5), "info")]
    assert entries[0][2].startswith("payment gateway certificate expired\nTraceback")
    assert entries[0][2].endswith("ssl.SSLError: expired")
    assert await read(log, level="error", contains="certificate") == entries[:1]


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ('ts={ts} level=warn msg="pool nearly full" used=95', "warn"),
        ("{mariadb} 0 [ERROR] Aborted connection 12 to db: 'shop' user: 'app'", "error"),
        ("{mariadb} 31 [Warning] Access denied for user 'app'@'localhost' (using password: YES)", "warn"),
        ("{redis_stamp} # Failed opening the temp RDB file temp-9.rdb (in server root dir /x)", "warn"),
        ("{redis_stamp} * Ready to accept connections tcp", "info"),
        ('10.0.0.7 - - [{nginx}] "GET /checkout HTTP/1.1" 502 157 "-" "curl/8.0"', "error"),
        ('10.0.0.7 - - [{nginx}] "GET /cart HTTP/1.1" 404 12 "-" "curl/8.0"', "warn"),
        ("{syslog} web-1 kernel: Out of memory: Killed process 913 (java)", "info"),
        ("{syslog} web-1 sshd[77]: error: maximum authentication attempts exceeded", "error"),
        ("<11>{syslog} web-1 app[5]: gave up", "error"),
        ("{nginx_error} [crit] 81#81: *9 connect() failed (111: Connection refused)", "fatal"),
    ],
)
async def test_each_format_gives_time_and_level(tmp_path: Path, text: str, level: str) -> None:
    stamps = {
        "ts": at(2).isoformat(),
        "mariadb": local(2, "%Y-%m-%d %H:%M:%S"),
        "redis_stamp": "7:M " + local(2, "%d %b %Y %H:%M:%S.123"),
        "nginx": local(2, "%d/%b/%Y:%H:%M:%S %z"),
        "syslog": local(2, "%b %d %H:%M:%S"),
        "nginx_error": local(2, "%Y/%m/%d %H:%M:%S"),
    }
    line = text.format(**stamps)
    log = write(tmp_path / "x.log", f"{line}\n{line}\n")

    [(ts, got, message), _] = await read(log)

    assert (ts, got) == (at(2), level)
    assert message == line or message == "pool nearly full"  # logfmt's message is its msg field


async def test_mariadb_slow_log_entries_are_timed_by_their_statement(tmp_path: Path) -> None:
    stamp = int(at(3).timestamp())
    entry = (
        "# User@Host: app[app] @ localhost [127.0.0.1]\n# Thread_id: 8  Schema: shop  QC_hit: No\n"
        f"# Query_time: 0.400181  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\n"
        f"SET timestamp={stamp};\nSELECT SLEEP(0.4);\n"
    )
    header = "mariadbd, Version: 10.11.6-MariaDB-log. started with:\nTcp port: 3306  Unix socket: s\n"
    log = write(tmp_path / "slow.log", header + "# Time: 261202  4:05:06\n" + entry + entry)

    entries = await read(log)

    assert [(ts, level) for ts, level, _ in entries[:2]] == [(at(3), "warn"), (at(3), "warn")]
    assert entries[0][2].endswith("SELECT SLEEP(0.4);") and "# Query_time: 0.400181" in entries[0][2]
    assert all("# Time:" not in message for _, _, message in entries)


async def test_rotations_are_read_newest_first_within_the_window(tmp_path: Path) -> None:
    def jsonl(*minutes: int) -> str:
        return "".join(json.dumps({"ts": at(m).isoformat(), "msg": f"m{m}"}) + "\n" for m in minutes)

    write(tmp_path / "app.log", jsonl(3, 2, 1), mtime=at(1))
    write(tmp_path / "app.log.1", jsonl(30, 20, 10), mtime=at(10))
    with gzip.open(tmp_path / "app.log.2.gz", "wt") as archive:
        archive.write(jsonl(300, 200, 100))
    os.utime(tmp_path / "app.log.2.gz", (at(100).timestamp(),) * 2)
    # A glob matching the rotations too still reads each entry once.
    source = LogFiles({"svc": str(tmp_path / "app.log*")})

    everything = await source.query_range(LogQuery(window=WIDE, limit=100))
    recent = await source.query_range(LogQuery(window=TimeWindow(at(25), NOW), limit=100))
    newest = await source.query_range(LogQuery(window=WIDE, limit=4))

    assert [line.message for line in everything] == [f"m{m}" for m in (1, 2, 3, 10, 20, 30, 100, 200, 300)]
    assert [line.message for line in recent] == ["m1", "m2", "m3", "m10", "m20"]
    assert [line.message for line in newest] == ["m1", "m2", "m3", "m10"]
    assert [path.name for path in chains(str(tmp_path / "app.log*"))[0]] == [
        "app.log",
        "app.log.1",
        "app.log.2.gz",
    ]


def test_a_read_stops_at_the_window_start_and_at_the_budget(tmp_path: Path) -> None:
    old = "".join(
        json.dumps({"ts": at(600 - i / 100).isoformat(), "msg": "old " * 20}) + "\n" for i in range(50_000)
    )
    fresh = "".join(json.dumps({"ts": at(5 - i).isoformat(), "msg": f"fresh {i}"}) + "\n" for i in range(5))
    log = write(tmp_path / "big.log", old + fresh)
    assert log.stat().st_size > 5_000_000
    stream = _Stream("svc", [log])

    budget = Budget(64 * 1024 * 1024)
    recent = list(_read_stream(stream, TimeWindow(at(10), NOW + timedelta(minutes=1)), budget))
    small = Budget(2 * 64 * 1024)
    capped = list(_read_stream(stream, WIDE, small))

    assert [line.message for line in recent] == [f"fresh {i}" for i in range(4, -1, -1)]
    assert 64 * 1024 * 1024 - budget.left <= 2 * 64 * 1024  # the window's start stopped it in the last blocks
    assert small.left == 0 and 0 < len(capped) < 2_000  # the budget stopped it, newest lines kept
    assert capped[0].message == "fresh 4"


def test_detection_prefers_the_format_most_lines_match() -> None:
    pg = pg_line(1, "ERROR", 'relation "x" does not exist')
    assert detect([pg, pg, "\tcontinued"]).name == "postgresql"
    assert detect(['{"msg": "a", "level": "info"}', "not json"]).name == "json"
    assert detect(["free text only", "more text"]).name == "plain"


async def test_native_queries_are_refused(tmp_path: Path) -> None:
    source = LogFiles({"svc": str(tmp_path / "*.log")})
    with pytest.raises(SourceError) as raised:
        await source.query_range(LogQuery(window=WIDE, limit=5, native='{service="svc"}'))
    assert raised.value.status is EvidenceStatus.REJECTED
    assert not (await source.health()).ok


def test_journal_entries_become_lines_with_unit_identity() -> None:
    entry: dict[str, object] = {
        "__REALTIME_TIMESTAMP": str(int(at(1).timestamp() * 1_000_000)),
        "_SYSTEMD_UNIT": "nginx.service",
        "PRIORITY": "2",
        "_HOSTNAME": "web-1",
        "MESSAGE": list("caf\xe9".encode("latin-1")),
    }

    line = to_line(entry)

    assert line is not None
    assert (line.ts, dict(line.labels)) == (at(1), {"service": "nginx", "level": "fatal", "host": "web-1"})
    assert line.message == "caf\ufffd"


async def test_the_service_reads_log_files_when_no_loki_is_configured(tmp_path: Path) -> None:
    files = {"backends": {"log_files": {"svc": str(tmp_path / "*.log")}}}
    async with httpx.AsyncClient() as http:
        alone = build_sources(Settings(**files), http, cases=None)  # type: ignore[arg-type]
        beside_loki = build_sources(Settings(loki_url="http://loki:3100", **files), http, cases=None)  # type: ignore[arg-type]
        with_journal = build_sources(
            Settings(backends={"log_journal_path": str(tmp_path / "x.journal")}), http, cases=None
        )

    assert isinstance(alone.logs, LogFiles) and alone.metrics is None  # the demo world is not consulted
    assert isinstance(beside_loki.logs, LokiClient)
    assert isinstance(with_journal.logs, LogFiles)

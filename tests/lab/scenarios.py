"""What the lab asks: each scenario's fault (none for the healthy baseline), the questions an SRE would
ask while it holds, what a right answer names, and, for the recovered case, what is asked once it is
undone and its alert has cleared."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from tests.lab import faults
from tests.lab.faults import Fault


@dataclass(frozen=True)
class Scenario:
    name: str
    questions: tuple[str, ...]
    # Lower-case tokens of which a right root cause names at least one; `{spool}` is the lab's mountpoint.
    culprits: tuple[str, ...] = ()
    fault: Callable[[], Fault] | None = None
    # Questions that ask for something narrower than the scenario's culprit: question -> its tokens.
    strict: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Asked after the fault is undone and its alert resolved: a recovered incident, no cause expected.
    recovered_questions: tuple[str, ...] = ()


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("healthy", ("anything abnormal on the hosts?", "is checkout healthy right now?")),
    Scenario(
        "pg-lock",
        ("why are queries timing out?", "who holds the lock everyone waits on?"),
        culprits=(faults.BLOCKER_APP, "payments", "pg-1"),
        fault=faults.LockContention,
        # The blocker is a session: only its application (or its pid, unknown in advance) answers "who".
        strict={"who holds the lock everyone waits on?": (faults.BLOCKER_APP,)},
    ),
    Scenario(
        "pg-connection-leak",
        ("why is the database running out of connections?", "who holds the connections?"),
        culprits=(faults.LEAK_APP, "payments", "pg-1"),
        fault=faults.ConnectionLeak,
        # A leak is found by naming who holds the connections: the leaking application.
        strict={
            "why is the database running out of connections?": (faults.LEAK_APP,),
            "who holds the connections?": (faults.LEAK_APP,),
        },
    ),
    Scenario(
        "host-cpu",
        ("anything abnormal on the hosts?", "why is the CPU saturated?"),
        culprits=("web-1",),
        fault=faults.CpuSaturation,
    ),
    Scenario(
        "host-disk",
        ("why is HostFilesystemAlmostFull firing?", "which filesystem is filling up?"),
        culprits=("{spool}",),
        fault=faults.FilesystemFill,
    ),
    Scenario(
        "redis-keys",
        ("why did the number of keys in redis jump?",),
        culprits=("cache-1", "redis"),
        fault=faults.RedisKeySpike,
    ),
    Scenario(
        "target-down",
        ("a scrape target is down: which one and why?",),
        culprits=("mariadb-1", "mysqld"),
        fault=faults.ExporterStopped,
    ),
    Scenario(
        "checkout-slow",
        ("why is checkout slow since the deploy?",),
        culprits=("/checkout", "storefront"),
        fault=faults.slow_checkout,
    ),
    Scenario(
        "checkout-500",
        ("why is checkout returning 500s?",),
        culprits=("/checkout", "storefront"),
        fault=faults.failing_checkout,
        recovered_questions=("is checkout still returning 500s?",),
    ),
    # The cause is only in the storefront's log file (its words, not a metric's): the answer must say it.
    Scenario(
        "checkout-cert-log",
        ("why are checkouts failing?",),
        culprits=("certificate expired",),
        fault=faults.ExpiredGatewayCertificate,
    ),
)

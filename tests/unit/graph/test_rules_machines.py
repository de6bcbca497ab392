"""A host agent's job over several machines is each machine; a kernel's lines from one are its own."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.machines import machine_jobs, software_named
from graph.analysts.rules.suspects import rank_suspects
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly


def _ask(
    digest: Digest, question: str = "clients time out since 08:50, what is the root cause?"
) -> DiagnoseRequest:
    return DiagnoseRequest(
        route=Route(route="complex", resolved_query=question),
        evidence=[],
        digest=digest,
        now="2026-01-01T09:40:00Z",
    )


def _series(metric: str, instance: str, base: float, now: float, job: str = "hostagent") -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-3",
        metric=metric,
        labels={"job": job, "instance": instance},
        service=job,
        baseline=base,
        recent=now,
        peak=now,
        change_at="2026-01-01T08:43:00Z",
        direction="up",
        ratio=now / base,
        score=50.0,
    )


def _alert(
    name: str, instance: str, started: str, severity: str = "critical", job: str = "hostagent"
) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1",
        alertname=name,
        service=job,
        severity=severity,
        status="firing",
        count=1,
        instances=[instance],
        first_started=started,
        summary=f"{name} on {instance}",
        labels={"alertname": name, "job": job, "instance": instance},
    )


def _line(service: str, level: str, text: str, first: str, count: int, host: str | None = None) -> LogPattern:
    return LogPattern(
        evidence_id="logs-2",
        service=service,
        level=level,
        template=text,
        count=count,
        first_seen=first,
        last_seen="2026-01-01T09:39:00Z",
        example=text,
        host=host,
    )


def _edge(*, kernel_host: str | None = "edge-7") -> Digest:
    """A load balancer's connection table fills on edge-7 while a render host burns CPU all morning;
    a prober fails to reach the public URL."""
    return Digest(
        anomalies=[
            _series("hostagent_nf_conntrack_entries", "edge-7:9100", 126_000, 262_000),
            _series("increase(hostagent_nf_conntrack_stat_drop)", "edge-7:9100", 1, 724_000),
        ],
        alert_groups=[
            _alert("HostCpuBusy", "render-4:9100", "2026-01-01T06:19:00Z"),
            _alert("HostConntrackLimit", "edge-7:9100", "2026-01-01T08:56:00Z", severity="warning"),
            AlertGroup(
                evidence_id="alerts-1",
                alertname="ProbeFailed",
                service="api",
                severity="critical",
                status="firing",
                count=1,
                instances=["https://api.example.test/healthz"],
                first_started="2026-01-01T09:04:00Z",
                summary="Probe failed",
                labels={"alertname": "ProbeFailed", "instance": "https://api.example.test/healthz"},
            ),
        ],
        log_patterns=[
            _line(
                "kernel",
                "warning",
                "nf_conntrack: table full, dropping packet",
                "2026-01-01T08:57:02Z",
                259,
                kernel_host,
            ),
            _line(
                "prober",
                "error",
                "probe https://api.example.test/healthz failed: connect timeout after <DURATION>",
                "2026-01-01T08:58:00Z",
                9,
                "probe-1",
            ),
        ],
    )


def test_a_host_agent_job_over_several_machines_is_each_machine() -> None:
    digest = _edge()
    assert machine_jobs(digest) == {"hostagent"}
    ranking = rank_suspects(digest)
    names = {s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert "hostagent" not in names and {"edge-7", "render-4"} <= names
    # The machine's own kernel lines joined it: it holds the series, the alert and the errors.
    edge = next(s for s in ranking.ranked if s.service == "edge-7")
    assert edge.anomalies and edge.alerts and edge.errors


def test_the_machine_whose_own_table_filled_is_the_cause_and_the_busy_host_is_ruled_out() -> None:
    draft = diagnose_digest(_ask(_edge()))
    assert draft.root_cause is not None and draft.root_cause.service == "edge-7"
    assert draft.root_cause.category == "saturation"
    assert [r.service for r in draft.ruled_out] == ["render-4"]
    # A probe's URL names its host, never its scheme.
    assert "https" not in {s.service for s in rank_suspects(_edge()).ranked}


def test_lines_of_no_known_machine_stay_their_streams() -> None:
    ranking = rank_suspects(_edge(kernel_host="elsewhere-1"))
    assert "kernel" in {s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}


def test_a_job_that_logs_under_its_name_or_runs_on_one_machine_is_one_system() -> None:
    digest = _edge()
    logged = Digest(
        anomalies=digest.anomalies,
        alert_groups=digest.alert_groups,
        log_patterns=[*digest.log_patterns, _line("hostagent", "info", "started", "2026-01-01T06:00:00Z", 3)],
    )
    assert machine_jobs(logged) == set()
    one = Digest(anomalies=digest.anomalies, alert_groups=digest.alert_groups[1:])
    assert machine_jobs(one) == set()


def test_a_job_is_named_after_its_software_by_its_series_first() -> None:
    assert software_named(
        "hostagent", ["hostagent_load1", "rate(hostagent_cpu_seconds_total)"], ["HostCpuBusy"]
    )
    assert not software_named("checkout", ["http_requests_total", "process_cpu_seconds_total"], [])
    assert software_named("sqlserverd", [], ["SqlserverDown"])  # no series: its alerts speak
    assert not software_named("web", ["pg_up"], [])  # a word too short to tell


def test_a_kernel_table_that_filled_is_exhaustion_in_the_machines_own_words() -> None:
    def edge_score(text: str) -> float:
        digest = _edge()
        lines = [
            replace(p, template=text, example=text) if p.service == "kernel" else p
            for p in digest.log_patterns
        ]
        ranking = rank_suspects(
            Digest(anomalies=digest.anomalies, alert_groups=digest.alert_groups, log_patterns=lines)
        )
        return next(s.score for s in ranking.ranked if s.service == "edge-7")

    assert edge_score("nf_conntrack: table full, dropping packet") == edge_score("eth0: link flapped") + 1.5
    assert (
        edge_score("VFS: file-max limit reached: too many open files")
        == edge_score("eth0: link flapped") + 1.5
    )


def _store(pod: str, metric: str, base: float, now: float, host: str) -> MetricAnomaly:
    return replace(
        _series(metric, f"{host}:2379", base, now, job="kvstore"),
        labels={"job": "kvstore", "instance": f"{host}:2379", "namespace": "kube-system", "pod": pod},
        service="kvstore",
    )


def test_the_pod_of_a_workload_that_holds_the_move_is_named_beside_it() -> None:
    """One member's disk is slow; a leader election every member saw moved them all alike."""
    moves = [
        _store("kvstore-cp-2", "p99(kvstore_disk_wal_fsync_duration_seconds)", 0.009, 1.6, "10.0.0.12"),
        _store("kvstore-cp-2", "p99(kvstore_disk_backend_commit_duration_seconds)", 0.03, 3.8, "10.0.0.12"),
        *(
            _store(
                f"kvstore-cp-{n}",
                "rate(kvstore_server_leader_changes_seen_total)",
                0.0001,
                0.004,
                f"10.0.0.1{n}",
            )
            for n in (1, 2, 3)
        ),
    ]
    fsync = "wal: slow fdatasync took 2.07s, expected 1s"
    digest = Digest(
        anomalies=moves, log_patterns=[_line("kvstore", "warn", fsync, "2026-01-01T08:43:02Z", 37)]
    )
    draft = diagnose_digest(_ask(digest))
    assert draft.root_cause is not None and draft.root_cause.service == "kvstore"  # the workload's name
    assert "pod kvstore-cp-2" in draft.root_cause.statement
    assert draft.root_cause.category == "disk-io"
    # Every member alike: no pod is singled out.
    spread = Digest(anomalies=moves[2:], log_patterns=digest.log_patterns)
    spread_draft = diagnose_digest(_ask(spread))
    assert spread_draft.root_cause is not None and "pod " not in spread_draft.root_cause.statement


def test_a_job_logging_under_a_longer_name_and_a_machine_of_several_jobs_stay_systems() -> None:
    api = [
        replace(
            _series(
                "p99(apiserver_request_duration_seconds)", f"10.0.0.1{n}:6443", 0.16, 4.2, job="apiserver"
            )
        )
        for n in (1, 2)
    ]
    logged = Digest(
        anomalies=api,
        log_patterns=[_line("kube-apiserver", "error", "etcd request timed out", "2026-01-01T08:43:00Z", 16)],
    )
    assert machine_jobs(logged) == set()
    # A caller's line names the machine both the API server and its store are scraped at: not a system.
    store = _store("kvstore-cp-2", "p99(kvstore_disk_wal_fsync_duration_seconds)", 0.009, 1.6, "10.0.0.12")
    alert = _alert("KvstoreHighFsync", "10.0.0.12:2379", "2026-01-01T08:51:00Z", job="kvstore")
    named = Digest(
        anomalies=[*api, store],
        alert_groups=[alert],
        log_patterns=[
            *logged.log_patterns,
            _line(
                "controller", "error", 'Put "https://10.0.0.12:6443/apis": timeout', "2026-01-01T08:44:00Z", 9
            ),
        ],
    )
    names = {s.service for s in rank_suspects(named).ranked}
    assert "10.0.0.12" not in names and "kvstore" in names


def test_an_alert_group_naming_the_job_and_its_machine_is_answered_with_the_machine() -> None:
    """AIOps asks "Alert X is firing on node (job=node instance=vm-7:9100)": the machine is meant; a
    question calling it by the job alone keeps the job's name."""
    from dataclasses import replace as _replace

    from graph.analysts.rules.diagnose import diagnose_digest
    from tests.unit.graph.digest_facts import alert, ask, move

    labels = {"job": "node", "instance": "vm-7:9100", "mountpoint": "/spool", "device": "tmpfs"}
    free = _replace(
        move("node_filesystem_avail_bytes", "node", "2026-03-01T10:30:00Z", labels), direction="down"
    )
    digest = Digest(
        anomalies=[free],
        alert_groups=[
            alert("NodeFilesystemAlmostFull", "node", "2026-03-01T10:32:00Z", labels, "free below 10%")
        ],
    )
    group = "Alert NodeFilesystemAlmostFull is firing on node (job=node instance=vm-7:9100). Why?"
    request = ask(group, digest)
    request = _replace(request, route=request.route.model_copy(update={"services": ["node"]}))
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.service == "vm-7"
    by_job = ask("why is node failing?", digest)
    by_job = _replace(by_job, route=by_job.route.model_copy(update={"services": ["node"]}))
    named = diagnose_digest(by_job).root_cause
    assert named is not None and named.service == "node"


def test_a_host_agent_job_on_one_machine_is_that_machine_when_a_stream_is_named_for_it() -> None:
    """The agent reads one machine only, but a broker logs as `edge-7` from it: the machine's disk alert is
    the machine's, not a system called `hostagent` to rule out."""
    digest = _edge()
    one = Digest(
        anomalies=digest.anomalies,
        alert_groups=digest.alert_groups[1:],
        log_patterns=[
            _line("edge-7", "error", "No space left on device", "2026-01-01T08:57:00Z", 12, "edge-7.lan")
        ],
    )
    assert machine_jobs(one) == {"hostagent"}
    draft = diagnose_digest(_ask(one))
    assert "hostagent" not in {r.service for r in draft.ruled_out}
    assert draft.root_cause is not None and draft.root_cause.service == "edge-7"

"""What a question is about when the evidence holds more than one problem: a time it states, a host
or an alert it names, a change it mentions in passing, a queue that backs up; and lines as steady as
before the window when it asks whether anything is wrong."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest


def _two_problems() -> Digest:
    """A CI runner's disk errors since 09:20 (the most lines), a gateway's rejects since 10:05."""
    return Digest(
        log_patterns=[
            lines(
                "ci-runner",
                "job failed: mkdir /var/lib/docker: no space left on device",
                "2026-03-01T09:20:00Z",
                300,
            ),
            lines("gate", "request rejected: upstream returned 401", "2026-03-01T10:05:30Z", 60),
        ]
    )


def test_a_question_that_dates_its_trouble_is_about_what_began_then() -> None:
    draft = diagnose_digest(ask("Logins fail since ~10:05. What's going on?", _two_problems()))
    assert draft.root_cause is not None and draft.root_cause.service == "gate"
    assert "ci-runner" in draft.summary  # listed as also happening, never substituted
    undated = diagnose_digest(ask("What's going on?", _two_problems()))
    assert undated.root_cause is not None and undated.root_cause.service == "ci-runner"
    # A cause may begin shortly before the trouble it dates: it keeps its place.
    near = diagnose_digest(ask("CI fails since 09:30. What's going on?", _two_problems()))
    assert near.root_cause is not None and near.root_cause.service == "ci-runner"


def _inode_alert(errors_host: str) -> Digest:
    """An inode alert since 08:00 on runner-4; a CI agent's disk errors from 09:39, a gateway's from 10:05."""
    labels = {"job": "node", "instance": "runner-4:9100", "mountpoint": "/var/lib/docker"}
    return Digest(
        alert_groups=[
            alert(
                "NodeFilesystemAlmostOutOfFiles",
                "node",
                "2026-03-01T08:00:00Z",
                labels,
                "less than 5% inodes left",
            )
        ],
        log_patterns=[
            lines(
                "ci-agent",
                "job failed: mkdir /var/lib/docker/x: no space left on device",
                "2026-03-01T09:39:00Z",
                60,
                host=errors_host,
            ),
            lines("gate", "request rejected: upstream returned 401", "2026-03-01T10:05:30Z", 170),
        ],
    )


def test_an_alert_on_a_host_port_scopes_a_question_naming_the_host_and_its_systems_errors_follow() -> None:
    question = "CI jobs on runner-4 fail with 'no space left on device'. What's going on?"
    draft = diagnose_digest(ask(question, _inode_alert("runner-4")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("runner-4", "disk_full")
    assert "ci-agent" in draft.root_cause.statement
    # The same errors on another machine say nothing about this one's alert.
    elsewhere = diagnose_digest(ask(question, _inode_alert("runner-9")))
    assert elsewhere.root_cause is None and "cause is not established" in elsewhere.summary


def test_a_question_scopes_to_the_system_whose_alert_name_holds_its_word() -> None:
    """ "Card checkouts are slow" and `PaymentsCheckoutLatencyHigh` on payments, beside a louder
    incident elsewhere."""
    digest = Digest(
        alert_groups=[
            alert(
                "PaymentsCheckoutLatencyHigh", "payments", "2026-03-01T10:52:00Z", {"job": "payments"}, "p99"
            ),
            alert("QueueBacklog", "worker", "2026-03-01T10:20:00Z", {"job": "worker"}, "backlog"),
        ],
        log_patterns=[
            lines("payments", "charge slow: provider took 7s (budget 2s)", "2026-03-01T10:52:30Z", 30),
            lines("worker", "task failed: lock wait timeout exceeded", "2026-03-01T10:20:10Z", 300),
        ],
    )
    draft = diagnose_digest(ask("Card checkouts are slow. What's going on?", digest))
    assert draft.root_cause is not None and draft.root_cause.service == "payments"
    unscoped = diagnose_digest(ask("What's going on?", digest))
    assert unscoped.root_cause is not None and unscoped.root_cause.service == "worker"


def _backlog(broker_errors: bool) -> Digest:
    """A queue backs up from 18:00; its consumer (whose series name the queue) fails on the origin's
    expired certificate; the origin's probe and certificate alerts fire."""
    queue = {"instance": "mq-0:15692", "queue": "origin-sync"}
    said = [
        lines(
            "uploader", "sync failed: tls: failed to verify certificate: x509 expired", "2026-03-01T10:22:00Z"
        ),
        lines("cdn-origin", "SSL_do_handshake() failed: certificate expired", "2026-03-01T10:00:30Z"),
    ]
    if broker_errors:
        said.append(lines("mq-0:15692", "disk alarm set: publishers blocked", "2026-03-01T09:59:00Z"))
    return Digest(
        anomalies=[
            move("mq_queue_messages_ready", "mq-0:15692", "2026-03-01T10:01:00Z", queue),
            move(
                "rate(origin_sync_uploads_failed_total)",
                "uploader",
                "2026-03-01T10:00:00Z",
                {"job": "uploader"},
            ),
        ],
        alert_groups=[
            alert("QueueBacklog", "mq-0:15692", "2026-03-01T10:20:00Z", queue, "backlog growing"),
            alert(
                "ProbeFailed", "cdn-origin", "2026-03-01T10:00:00Z", {"job": "probe"}, "certificate expired"
            ),
        ],
        log_patterns=said,
    )


def test_a_queue_that_backs_up_is_explained_by_its_failing_consumer_and_what_that_fails_on() -> None:
    question = "Uploads aren't reaching the origin and the origin-sync queue keeps growing. Why?"
    draft = diagnose_digest(ask(question, _backlog(broker_errors=False)))
    assert draft.root_cause is not None and draft.root_cause.service == "cdn-origin"
    # A broker failing itself is no backlog of a consumer's making.
    failing = diagnose_digest(ask(question, _backlog(broker_errors=True)))
    assert failing.root_cause is not None and failing.root_cause.service == "mq-0:15692"


def _trickle() -> Digest:
    """A proxy's 503 lines as steady through the read as at its start; its alerts resolved."""
    steady = replace(
        lines(
            "edge-proxy", "GET /cart 503 upstream cart unavailable", "2026-03-01T09:05:00Z", 200, level="warn"
        ),
        steady=True,
    )
    return Digest(log_patterns=[steady])


def test_steady_lines_answer_why_but_are_background_when_asked_whether_anything_is_wrong() -> None:
    healthy = diagnose_digest(ask("Paged earlier for the edge. Is it healthy now?", _trickle()))
    assert healthy.root_cause is None and healthy.verdict != "incident"
    asked = diagnose_digest(ask("Why does the edge keep returning 503s every so often?", _trickle()))
    assert asked.root_cause is not None and asked.root_cause.service == "edge-proxy"
    # A steady trickle beside a firing alert of the same system is its trouble whatever the question.
    firing = replace(
        _trickle(), alert_groups=[alert("Edge5xx", "edge-proxy", "2026-03-01T10:40:00Z", {}, "5xx")]
    )
    alerted = diagnose_digest(ask("Is the edge healthy?", firing))
    assert alerted.verdict == "incident"


def test_the_alert_a_question_names_leads_the_statement_beside_another_on_its_machine() -> None:
    disk = {"job": "node", "instance": "web-1:9100", "mountpoint": "/srv/spool"}
    cpu = {"job": "node", "instance": "web-1:9100"}
    digest = Digest(
        alert_groups=[
            alert("HostHighCpuLoad", "node", "2026-03-01T10:30:00Z", cpu, "load high"),
            replace(
                alert("HostFilesystemAlmostFull", "node", "2026-03-01T10:40:00Z", disk, "spool filling"),
                identities=["instance=web-1:9100 mountpoint=/srv/spool"],
            ),
        ],
        anomalies=[move("node_load1", "node", "2026-03-01T10:29:00Z", cpu)],
    )
    draft = diagnose_digest(ask("why is HostFilesystemAlmostFull firing?", digest))
    assert draft.root_cause is not None
    statement = draft.root_cause.statement
    assert "mountpoint=/srv/spool" in statement
    assert statement.index("HostFilesystemAlmostFull") < statement.index("node_load1")


def _pressure() -> Digest:
    """A CronJob fills /var on pool-b-3 (its node agent's alert and series); the cluster's state
    series says DiskPressure there; a banner was deployed a few minutes before, without trouble."""
    node = {"job": "node-exporter", "instance": "pool-b-3:9100", "mountpoint": "/var"}
    other = {"job": "node-exporter", "instance": "pool-a-1:9100", "mountpoint": "/var"}
    condition = {"job": "kube-state-metrics", "node": "pool-b-3", "condition": "DiskPressure"}
    return Digest(
        anomalies=[
            move("node_filesystem_avail_bytes", "node-exporter", "2026-03-01T10:01:00Z", node),
            move("node_load1", "node-exporter", "2026-03-01T08:00:00Z", other),
            move("kube_node_status_condition", "kube-state-metrics", "2026-03-01T10:18:00Z", condition),
        ],
        alert_groups=[
            alert("NodeFilesystemAlmostOutOfSpace", "node-exporter", "2026-03-01T10:18:00Z", node, "3% left")
        ],
        log_patterns=[
            lines(
                "locator",
                "evicted: node pool-b-3 was low on resource ephemeral-storage",
                "2026-03-01T10:20:00Z",
            ),
            replace(
                lines("banner", "deployed banner v2.4.0", "2026-03-01T10:15:00Z", 1, level="info"),
                last_seen="2026-03-01T10:15:00Z",
            ),
        ],
    )


def test_a_change_told_in_passing_does_not_scope_the_question_and_a_node_condition_is_its_machines() -> None:
    question = (
        "Riders get 'no drivers nearby' since about 10:20. banner was deployed at 10:15, did that break it?"
    )
    draft = diagnose_digest(ask(question, _pressure()))
    assert draft.root_cause is not None and draft.root_cause.service == "pool-b-3"
    assert "kube_node_status_condition{condition=DiskPressure}" in draft.root_cause.statement

"""Development-set worlds on Kubernetes: kube-state-metrics and cAdvisor series, container logs labelled by
namespace/pod/container, and cluster events as log lines (helpers shared with worlds_cluster.py)."""

from __future__ import annotations

from tests.data.devset.devset_writer import DevWorld, Values, pick

MIB = 1024**2
GIB = 1024**3
KSM = {"job": "kube-state-metrics", "instance": "10.42.0.17:8080"}
_MISSING = "Error: Cannot find module '/srv/app/build/main.js'"


def pod_series(
    w: DevWorld,
    ns: str,
    app: str,
    pod: str,
    *,
    mem_mib: float,
    restarts: Values | None = None,
    memory: Values | None = None,
) -> None:
    """cAdvisor and kube-state-metrics series of one single-container pod."""
    ids = {"namespace": ns, "pod": pod, "container": app}
    w.add(
        "container_memory_working_set_bytes",
        ids | {"image": f"registry.local/{ns}/{app}"},
        memory or w.level(mem_mib * MIB, jitter=0.02),
        digits=0,
    )
    w.add("container_cpu_usage_seconds_total", ids, w.cumulative(w.level(6.0, jitter=0.2)), digits=2)
    w.add("kube_pod_container_status_restarts_total", KSM | ids, restarts or [0.0] * len(w.grid), digits=0)
    w.add(
        "kube_pod_status_ready",
        KSM | {"namespace": ns, "pod": pod, "condition": "true"},
        [1.0] * len(w.grid),
        digits=0,
    )


def cluster_event(
    w: DevWorld, minutes_ago: float, ns: str, obj: str, reason: str, message: str, kind: str = "Pod"
) -> None:
    w.log(
        minutes_ago,
        obj.rsplit("-", 2)[0] if kind == "Pod" else obj,
        "warning" if reason in {"BackOff", "OOMKilling", "Unhealthy", "Failed"} else "info",
        message,
        namespace=ns,
        source="kubernetes-event",
        reason=reason,
        kind=kind,
        object=obj,
    )


def _steps(w: DevWorld, at_minutes: list[float], start: float = 0.0) -> Values:
    """A restart counter that increments at the given minutes ago."""
    return [start + sum(1 for m in at_minutes if (w.grid[-1] - ts) / 60 <= m) for ts in w.grid]


def orchard_oomkilled() -> DevWorld:
    w = DevWorld(
        "orchard-oomkilled",
        "2027-02-17T10:05:00Z",
        2301,
        "Orchard ripeness scoring on Kubernetes: the "
        "scorer's memory grows to its 512Mi limit and it is OOMKilled repeatedly from 09:20.",
    )
    kills = [44.0, 33.0, 22.0, 11.0, 2.0]
    memory = w.level(210 * MIB, jitter=0.02)
    for start, end in ((80, 44), (44, 33), (33, 22), (22, 11), (11, 2), (2, 0)):
        memory = w.climb(memory, since=start, to=509 * MIB if end else 300 * MIB, until=end)
    pod_series(
        w,
        "orchard",
        "ripeness-scorer",
        "ripeness-scorer-7c9d5-xk2lp",
        mem_mib=210,
        restarts=_steps(w, kills),
        memory=memory,
    )
    pod_series(w, "orchard", "crate-tracker", "crate-tracker-59b7f-q8m4n", mem_mib=140)
    w.add(
        "kube_pod_container_status_last_terminated_reason",
        KSM
        | {
            "namespace": "orchard",
            "pod": "ripeness-scorer-7c9d5-xk2lp",
            "container": "ripeness-scorer",
            "reason": "OOMKilled",
        },
        [1.0] * len(w.grid),
        digits=0,
        window=(44, 0),
    )
    w.add(
        "kube_pod_container_resource_limits",
        KSM
        | {
            "namespace": "orchard",
            "pod": "ripeness-scorer-7c9d5-xk2lp",
            "container": "ripeness-scorer",
            "resource": "memory",
            "unit": "byte",
        },
        [512.0 * MIB] * len(w.grid),
        digits=0,
    )
    for minute in kills:
        cluster_event(
            w,
            minute,
            "orchard",
            "ripeness-scorer-7c9d5-xk2lp",
            "OOMKilling",
            "Memory cgroup out of memory: Killed process 2213 (python3) total-vm:1893412kB, "
            "anon-rss:523112kB",
        )
        cluster_event(
            w,
            minute - 0.5,
            "orchard",
            "ripeness-scorer-7c9d5-xk2lp",
            "BackOff",
            "Back-off restarting failed container ripeness-scorer in pod ripeness-scorer-7c9d5-xk2lp_orchard",
        )
    labels = {"namespace": "orchard", "pod": "ripeness-scorer-7c9d5-xk2lp"}
    w.chatter(
        "ripeness-scorer",
        "info",
        pick(("scored tray {rid}: brix=1{ms} firmness ok",)),
        since=180,
        every=1,
        tags=labels,
    )
    for minute, batch in ((40, "b-5521"), (29, "b-5590"), (18, "b-5613")):
        w.log(
            minute,
            "ripeness-scorer",
            "error",
            f"scoring batch {batch} failed: MemoryError while stacking 4096 tray images",
            **labels,
        )
    w.alert(
        "KubePodCrashLooping",
        {
            "namespace": "orchard",
            "pod": "ripeness-scorer-7c9d5-xk2lp",
            "container": "ripeness-scorer",
            "severity": "warning",
        },
        30,
        description="Pod orchard/ripeness-scorer-7c9d5-xk2lp (ripeness-scorer) is in waiting "
        'state (reason: "CrashLoopBackOff").',
    )
    w.ask(
        "orchard-scores-missing",
        "Ripeness scores keep disappearing from the orchard dashboard. What's wrong?",
        kind="vendor-named",
        verdict="incident",
        root_cause_service="ripeness-scorer",
        category="memory",
        data_contains=["OOM"],
    )
    w.ask(
        "orchard-show-errors",
        "Show the errors in ripeness-scorer's logs.",
        kind="data-question",
        route="lookup",
        data_contains=["b-5521", "b-5590", "b-5613"],
    )
    return w


def marigold_bad_deploy() -> DevWorld:
    w = DevWorld(
        "marigold-bad-deploy",
        "2027-03-29T14:50:00Z",
        2302,
        "Pollen forecast service on Kubernetes: "
        "release 4.12.0 rolled out at 14:21 crash-loops on start; the old ReplicaSet keeps one replica.",
    )
    ns, app = "marigold", "pollen-forecast"
    unavailable = w.move([0.0] * len(w.grid), since=29, to=2, ramp=1, jitter=0)
    w.add(
        "kube_deployment_status_replicas_unavailable",
        KSM | {"namespace": ns, "deployment": app},
        unavailable,
        digits=0,
    )
    w.add(
        "kube_deployment_status_replicas_available",
        KSM | {"namespace": ns, "deployment": app},
        [3 - v for v in unavailable],
        digits=0,
    )
    crash_at = [27.0 - 2.6 * i for i in range(10)]
    pod_series(w, ns, app, "pollen-forecast-5f7b9c-r2kd8", mem_mib=90, restarts=_steps(w, crash_at))
    pod_series(w, ns, app, "pollen-forecast-6d44f-9tq2c", mem_mib=310)
    cluster_event(
        w,
        30,
        ns,
        app,
        "ScalingReplicaSet",
        "Scaled up replica set pollen-forecast-5f7b9c to 1",
        kind="Deployment",
    )
    cluster_event(
        w,
        29.5,
        ns,
        "pollen-forecast-5f7b9c-r2kd8",
        "Pulled",
        'Successfully pulled image "registry.local/marigold/pollen-forecast:4.12.0" in 2.1s',
    )
    cluster_event(
        w,
        20,
        ns,
        "pollen-forecast-5f7b9c-r2kd8",
        "BackOff",
        "Back-off restarting failed container pollen-forecast in pod pollen-forecast-5f7b9c-r2kd8_marigold",
    )
    new_pod = {"namespace": ns, "pod": "pollen-forecast-5f7b9c-r2kd8"}
    for seq, minute in enumerate(
        sorted(crash_at + [m - 0.3 for m in crash_at] + [1.0, 0.6, 0.3], reverse=True), start=1
    ):
        w.log(
            minute,
            app,
            "error",
            f'level=ERROR msg="boot failed" err="{_MISSING}" crash-seq={seq:03d}',
            **new_pod,
        )
    w.log(
        25,
        app,
        "error",
        f'level=ERROR msg="boot failed" err="{_MISSING}" crash-seq=s-914',
        namespace="marigold-staging",
        pod="pollen-forecast-77f1c-hh2x9",
    )
    w.chatter(
        app,
        "info",
        pick(("GET /forecast?region=r{ms} 200 {ms}ms",)),
        since=180,
        every=1,
        namespace=ns,
        pod="pollen-forecast-6d44f-9tq2c",
    )
    w.alert(
        "KubeDeploymentReplicasMismatch",
        {"namespace": ns, "deployment": app, "severity": "warning"},
        15,
        description="Deployment marigold/pollen-forecast has not matched the expected number of replicas "
        "for longer than 15 minutes.",
    )
    w.ask(
        "marigold-forecast-degraded",
        "Pollen forecasts are slow and sometimes fail since the afternoon release. Why?",
        kind="event-driven",
        verdict="incident",
        root_cause_service="pollen-forecast",
        category="deploy",
        data_contains=["4.12.0"],
    )
    w.ask(
        "marigold-last-errors",
        "Post the last 20 lines containing ERROR from pollen-forecast in namespace marigold.",
        kind="data-question",
        route="lookup",
        data_contains=["crash-seq=023", "crash-seq=004"],
        data_none=["crash-seq=003", "crash-seq=s-914"],
    )
    return w


def meadow_quiet() -> DevWorld:
    w = DevWorld(
        "meadow-quiet",
        "2027-04-21T08:15:00Z",
        2303,
        "A quiet beekeeping cluster: ordinary noise, one old restart, nothing firing.",
    )
    pod_series(
        w, "meadow", "hive-weights", "hive-weights-6c8d7-2bq9z", mem_mib=180, restarts=[41.0] * len(w.grid)
    )
    pod_series(w, "meadow", "swarm-alerts", "swarm-alerts-54f9d-kk7wr", mem_mib=95)
    pod_series(
        w,
        "meadow-jobs",
        "honey-ledger-sync",
        "honey-ledger-sync-28911230-7xq2p",
        mem_mib=60,
        restarts=[263.0] * len(w.grid),
    )
    for app in ("hive-weights", "swarm-alerts"):
        w.chatter(
            app,
            "info",
            pick(("hive {ms} weight sample stored req={rid}", "GET /healthz 200")),
            since=180,
            every=1,
            namespace="meadow",
        )
    w.chatter(
        "hive-weights",
        "warn",
        pick(("scale sensor {ms} reported jitter, smoothing applied",)),
        since=180,
        every=40,
        namespace="meadow",
    )
    w.ask(
        "meadow-anything-wrong",
        "Is anything wrong in the meadow namespace?",
        kind="healthy-noise",
        verdict="healthy",
    )
    w.ask(
        "meadow-promql-restarts",
        "Run this PromQL: sum by (namespace) (kube_pod_container_status_restarts_total)",
        kind="data-question",
        route="lookup",
        data_contains=["meadow-jobs", "263", "41"],
    )
    return w


WORLDS = (orchard_oomkilled, marigold_bad_deploy, meadow_quiet)

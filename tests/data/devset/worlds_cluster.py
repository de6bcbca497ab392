"""Development-set worlds on a Kubernetes cluster's shared services: CoreDNS, RabbitMQ, kubelet volume stats,
with a red herring or a silenced stale alert beside the fault."""

from __future__ import annotations

from tests.data.devset.devset_writer import DevWorld, pick
from tests.data.devset.worlds_k8s import GIB, KSM, cluster_event, pod_series


def kestrel_dns() -> DevWorld:
    w = DevWorld(
        "kestrel-dns",
        "2027-05-06T02:40:00Z",
        2304,
        "Courier dispatch: CoreDNS forwarding fails from 02:12 and "
        "dispatch cannot resolve the rates service; a nightly batch host is busy as every night.",
    )
    servfail = w.move(w.level(0.2, jitter=0.4), since=28, to=46, ramp=2)
    ok = w.level(310, jitter=0.05)
    for rcode, rate in (("NOERROR", ok), ("SERVFAIL", servfail)):
        w.add(
            "coredns_dns_responses_total",
            {"job": "coredns", "instance": "10.42.1.4:9153", "rcode": rcode, "server": "dns://:53"},
            w.cumulative([60 * r for r in rate]),
            digits=0,
        )
    w.add(
        "coredns_forward_healthcheck_failures_total",
        {"job": "coredns", "instance": "10.42.1.4:9153", "to": "10.0.0.2:53"},
        w.cumulative(w.move([0.0] * len(w.grid), since=28, to=6, ramp=1)),
        digits=0,
    )
    w.add(
        "node_cpu_seconds_total",
        {"job": "node", "instance": "kestrel-batch-2", "mode": "user", "cpu": "0"},
        w.cumulative(w.level(51, jitter=0.05)),
        digits=2,
    )
    w.add(
        "instance_cpu_utilisation",
        {"job": "node", "instance": "kestrel-batch-2"},
        w.level(0.86, jitter=0.03),
        digits=3,
    )
    w.chatter(
        "coredns",
        "error",
        pick(
            (
                "[ERROR] plugin/errors: 2 courier-rates.kestrel.svc.cluster.local. A: read udp "
                "10.42.1.4:5{ms}->10.0.0.2:53: i/o timeout",
            )
        ),
        since=28,
        every=0.4,
        namespace="kube-system",
    )
    w.chatter(
        "kestrel-dispatch",
        "info",
        pick(("dispatch {rid} assigned courier c-{ms}",)),
        since=180,
        until=28,
        every=0.8,
        namespace="kestrel",
    )
    w.chatter(
        "kestrel-dispatch",
        "error",
        pick(
            (
                "quote {rid} failed: dial tcp: lookup courier-rates.kestrel.svc.cluster.local on "
                "10.96.0.10:53: server misbehaving",
            )
        ),
        since=27,
        every=0.5,
        namespace="kestrel",
    )
    w.chatter(
        "nightly-reindex",
        "info",
        pick(("reindexed shard {ms} in {ms}s",)),
        since=180,
        every=3,
        namespace="batch",
    )
    w.alert(
        "CoreDNSErrorsHigh",
        {"job": "coredns", "severity": "critical", "namespace": "kube-system"},
        22,
        message="CoreDNS is returning SERVFAIL for 13% of requests.",
    )
    w.alert(
        "NodeHighCPUUsage",
        {"instance": "kestrel-batch-2", "severity": "warning"},
        170,
        description="CPU above 85% for 15m.",
    )
    w.alert(
        "KubeJobFailed",
        {"namespace": "batch", "job_name": "tarmac-rollup-2891", "severity": "warning"},
        150,
        ended=140,
        description="Job batch/tarmac-rollup-2891 failed to complete.",
    )
    w.ask(
        "kestrel-quotes-failing",
        "Courier quotes fail in dispatch since 02:10. What is the cause?",
        kind="red-herring",
        verdict="incident",
        root_cause_service="coredns",
        category="dns",
        keywords_none=["root cause: kestrel-batch-2"],
    )
    w.ask(
        "kestrel-firing",
        "Which alerts are firing?",
        kind="data-question",
        route="lookup",
        data_contains=["CoreDNSErrorsHigh", "NodeHighCPUUsage"],
        data_none=["KubeJobFailed"],
    )
    return w


def plover_queue() -> DevWorld:
    w = DevWorld(
        "plover-queue",
        "2027-06-15T17:25:00Z",
        2305,
        "Parcel label printing: the printer workers saturate and the "
        "print-jobs queue backs up from 16:50; the broker disk sits at its usual 82%.",
    )
    ready = w.climb(w.level(35, jitter=0.3), since=35, to=18400)
    w.add(
        "rabbitmq_queue_messages_ready",
        {"job": "rabbitmq", "instance": "plover-mq-0", "queue": "print-jobs", "vhost": "/"},
        ready,
        digits=0,
    )
    w.add(
        "rabbitmq_queue_consumers",
        {"job": "rabbitmq", "instance": "plover-mq-0", "queue": "print-jobs", "vhost": "/"},
        [16.0] * len(w.grid),
        digits=0,
    )
    w.add(
        "node_filesystem_avail_bytes",
        {"job": "node", "instance": "plover-mq-0", "mountpoint": "/var/lib/rabbitmq"},
        w.level(36 * GIB, jitter=0.002),
        digits=0,
    )
    w.add(
        "node_filesystem_size_bytes",
        {"job": "node", "instance": "plover-mq-0", "mountpoint": "/var/lib/rabbitmq"},
        [200.0 * GIB] * len(w.grid),
        digits=0,
    )
    w.chatter(
        "label-printer",
        "info",
        pick(("printed label {rid} in {ms}ms",)),
        since=180,
        until=35,
        every=0.3,
        namespace="plover",
    )
    w.chatter(
        "label-printer",
        "warn",
        pick(("worker pool exhausted: 16/16 busy, 0 idle; job {rid} waited 4{ms}s for a worker",)),
        since=34,
        every=0.5,
        namespace="plover",
    )
    w.log(
        36,
        "label-printer",
        "info",
        "carrier template set v7 loaded: each label now renders a 600dpi barcode sheet",
        namespace="plover",
    )
    cluster_event(w, 95, "plover", "parcel-intake-5c7d8-mm2xw", "Killing", "Stopping container parcel-intake")
    w.chatter(
        "tern-nightly-export",
        "info",
        pick(("exported page {ms} of manifests",)),
        since=120,
        until=49,
        every=4,
        namespace="plover-jobs",
    )
    w.log(
        48,
        "tern-nightly-export",
        "error",
        "export aborted: PutObject AccessDenied for bucket plover-manifests (request 7F3A9C)",
        namespace="plover-jobs",
    )
    w.add(
        "kube_job_status_failed",
        KSM | {"namespace": "plover-jobs", "job_name": "tern-nightly-export"},
        [1.0] * len(w.grid),
        digits=0,
        window=(48, 0),
    )
    w.alert(
        "RabbitMQQueueBacklog",
        {"instance": "plover-mq-0", "queue": "print-jobs", "severity": "critical"},
        25,
        summary="print-jobs has more than 5000 ready messages",
    )
    w.alert(
        "NodeFilesystemAlmostFull",
        {"instance": "plover-mq-0", "mountpoint": "/var/lib/rabbitmq", "severity": "warning"},
        175,
        description="Filesystem on /var/lib/rabbitmq at plover-mq-0 has 18% available space left.",
    )
    w.ask(
        "plover-labels-late",
        "Parcel labels are coming out 20 minutes late. Why?",
        kind="red-herring",
        verdict="incident",
        root_cause_service="label-printer",
        category="saturation",
        keywords_none=["root cause: plover-mq-0"],
    )
    w.ask(
        "plover-job-issue",
        "What is the issue with job tern-nightly-export?",
        kind="data-question",
        data_contains=["AccessDenied", "7F3A9C"],
    )
    return w


def wharf_stale_silenced() -> DevWorld:
    w = DevWorld(
        "wharf-stale-silenced",
        "2027-07-30T12:00:00Z",
        2306,
        "Container-port yard planner: a volume filled at 09:40, "
        "was expanded at 10:05; its alert still stands, silenced until the rule catches up.",
    )
    avail = w.move(w.level(42 * GIB, jitter=0.001), since=180, to=2.1 * GIB, ramp=20, until=116)
    avail = w.move(avail, since=115, to=341 * GIB, ramp=2, jitter=0.001)
    vol = {"namespace": "wharf", "persistentvolumeclaim": "yard-plans-data"}
    w.add("kubelet_volume_stats_available_bytes", {"job": "kubelet"} | vol, avail, digits=0)
    w.add(
        "kubelet_volume_stats_capacity_bytes",
        {"job": "kubelet"} | vol,
        w.move([200.0 * GIB] * len(w.grid), since=115, to=500 * GIB, ramp=1, jitter=0),
        digits=0,
    )
    pod_series(w, "wharf", "yard-planner", "yard-planner-0", mem_mib=400)
    cluster_event(
        w,
        116,
        "wharf",
        "yard-plans-data",
        "FileSystemResizeSuccessful",
        'MountVolume.NodeExpandVolume succeeded for volume "pvc-4f1b" yard-planner-0',
        kind="PersistentVolumeClaim",
    )
    w.chatter(
        "yard-planner",
        "info",
        pick(("plan {rid} saved for berth {ms}",)),
        since=180,
        every=1,
        namespace="wharf",
    )
    w.alert(
        "KubePersistentVolumeFillingUp",
        {"namespace": "wharf", "persistentvolumeclaim": "yard-plans-data", "severity": "critical"},
        140,
        silenced="volume expanded 200Gi -> 500Gi at 10:05, rule still evaluates the old capacity (OPS-2231)",
        description="The PersistentVolume claimed by yard-plans-data in Namespace wharf is only 1.05% free.",
    )
    w.ask(
        "wharf-volume-alert",
        "KubePersistentVolumeFillingUp is still up for yard-plans-data. Do we have a storage problem?",
        kind="healthy-noise",
        verdict="healthy",
        keywords_none=["root cause:"],
    )
    return w


WORLDS = (kestrel_dns, plover_queue, wharf_stale_silenced)

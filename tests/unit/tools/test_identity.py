"""Identity of plain label sets as real exporters write them (LAB-NOTES: node, postgres, redis, mysqld)."""

from __future__ import annotations

import pytest

from tools.identity import (
    IdentityLabels,
    identity_of,
    name_of,
    selector,
    selectors_for_name,
    workload_of_pod,
)

NODE_FS = {"__name__": "node_filesystem_avail_bytes", "job": "node", "instance": "db1:9100",
           "mountpoint": "/data", "device": "/dev/sdb1", "fstype": "ext4"}  # fmt: skip
PG_ACTIVITY = {"job": "postgres", "instance": "127.0.0.1:9187", "datname": "orders", "state": "idle"}
REDIS_KEYS = {"job": "redis", "instance": "127.0.0.1:9121", "db": "db3"}
MYSQL_THREADS = {"job": "mysqld", "instance": "127.0.0.1:9104"}
# A community rule that aggregates `by (instance)`: the alert has no job and no service.
CPU_ALERT = {"alertname": "HostHighCpuLoad", "instance": "db1:9100", "severity": "warning"}


def test_node_filesystem_series_keeps_instance_mountpoint_and_device() -> None:
    ident = identity_of(NODE_FS)
    assert ident.primary == (("job", "node"),)
    assert ident.text == "job=node instance=db1:9100 mountpoint=/data device=/dev/sdb1"
    assert ident.instance == "db1:9100"
    assert "fstype" not in ident.pairs()


def test_postgres_exporter_series_is_qualified_by_its_database() -> None:
    ident = identity_of(PG_ACTIVITY)
    assert ident.text == "job=postgres instance=127.0.0.1:9187 datname=orders"
    assert ident.name == "postgres"


def test_redis_and_mysqld_series_identify_by_job_and_instance() -> None:
    assert identity_of(REDIS_KEYS).text == "job=redis instance=127.0.0.1:9121"
    assert identity_of(MYSQL_THREADS).text == "job=mysqld instance=127.0.0.1:9104"


def test_alert_aggregated_by_instance_is_identified_by_its_instance() -> None:
    ident = identity_of(CPU_ALERT)
    assert ident.primary == (("instance", "db1:9100"),)
    assert ident.name == "db1:9100"
    assert not ident.empty


def test_alert_aggregated_by_handler_is_identified_by_its_endpoint() -> None:
    # `sum by (handler) (rate(http_requests_total{code=~"5.."}[1m]))`: job and instance are gone.
    ident = identity_of({"alertname": "HighErrorRate", "handler": "/checkout", "severity": "critical"})
    assert ident.primary == (("handler", "/checkout"),)
    assert ident.name == "/checkout"


def test_an_endpoint_label_never_outranks_the_system_it_belongs_to() -> None:
    labels = {"job": "storefront", "instance": "web-1:8000", "handler": "/checkout"}
    assert name_of(labels) == "storefront"


def test_label_set_without_identity_labels_has_an_empty_identity() -> None:
    ident = identity_of({"alertname": "Watchdog", "severity": "none"})
    assert ident.empty and ident.text == "" and ident.name is None
    assert selector(ident) == "{}"


def test_service_beats_app_and_job() -> None:
    labels = {"service": "checkout", "app": "shop", "job": "kubernetes-pods", "instance": "10.0.0.7:8080"}
    assert identity_of(labels).primary == (("service", "checkout"),)
    assert name_of(labels) == "checkout"


def test_namespace_pairs_with_workload_from_pod_name_and_container() -> None:
    labels = {"namespace": "shop", "pod": "checkout-7d9f8b6c5d-x2x7k", "container": "app"}
    ident = identity_of(labels)
    pod = ("pod", "checkout-7d9f8b6c5d-x2x7k")
    assert ident.primary == (("namespace", "shop"), pod, ("container", "app"))
    assert ident.name == "checkout"
    assert selector(ident) == '{namespace="shop",pod=~"checkout-.+",container="app"}'


@pytest.mark.parametrize(
    ("pod", "workload"),
    [
        ("checkout-7d9f8b6c5d-x2x7k", "checkout"),
        ("rate-engine-7d9f8b6c4d-x2k4p", "rate-engine"),
        ("node-exporter-4kx9z", "node-exporter"),
        ("ledger-db-2", "ledger-db"),
        ("cache-redis", None),
    ],
)
def test_workload_of_pod_strips_hash_and_suffix(pod: str, workload: str | None) -> None:
    assert workload_of_pod(pod) == workload


def test_configured_order_decides_the_primary_label() -> None:
    config = IdentityLabels(labels=("instance", "job"), resources=("queue",))
    ident = identity_of({"job": "rabbit", "instance": "mq1:9419", "queue": "orders"}, config)
    assert ident.text == "instance=mq1:9419 queue=orders"


def test_configured_label_names_are_validated() -> None:
    with pytest.raises(ValueError, match="label name"):
        IdentityLabels(labels=('service"}', "job"))


def test_selector_escapes_values() -> None:
    ident = identity_of({"job": 'we"ird\\job'})
    assert selector(ident) == '{job="we\\"ird\\\\job"}'


def test_bare_name_matches_any_identity_label_never_only_service() -> None:
    alternatives = selectors_for_name("node")
    assert '{job="node"}' in alternatives
    assert '{service="node"}' in alternatives
    assert '{instance=~"node(:[0-9]+)?"}' in alternatives
    assert selectors_for_name("  ") == ()


def test_instance_name_matches_with_or_without_port() -> None:
    assert '{instance=~"127\\\\.0\\\\.0\\\\.1(:[0-9]+)?"}' in selectors_for_name("127.0.0.1")


@pytest.mark.parametrize(
    ("labels", "name"),
    [
        ({"instance": "https://orders-api.prod.internal:8443/health"}, "orders-api"),
        ({"job": "blackbox", "instance": "https://orders-api.prod.internal:8443"}, "orders-api"),
        ({"job": "blackbox", "instance": "http://10.1.9.20:8080/"}, "10.1.9.20"),
        ({"job": "node", "instance": "db1.prod.internal:9100"}, "node"),  # a scrape target, not a probe
        ({"service": "portal", "instance": "https://portal.example.com"}, "portal"),
        # A public site by its whole name: its first label (`www`, `track`) names nothing.
        (
            {"job": "blackbox-http", "instance": "https://track.brackenfield.io/healthz"},
            "track.brackenfield.io",
        ),
        ({"job": "blackbox", "instance": "https://www.example.co/"}, "www.example.co"),
        ({"job": "blackbox", "instance": "http://orders-api.shop.svc.cluster.local/health"}, "orders-api"),
        ({"job": "blackbox", "instance": "http://orders-api:8080/health"}, "orders-api"),
    ],
)
def test_a_probed_url_names_the_system_probed_not_the_prober(labels: dict[str, str], name: str) -> None:
    assert name_of(labels) == name


def test_a_targets_own_job_kept_as_exported_job_names_it_over_the_scrape_job() -> None:
    """A scheduler's series about a job it runs: the scrape's `job` took the name, the job's is kept."""
    labels = {
        "job": "nomad-servers",
        "exported_job": "ledger-api",
        "namespace": "default",
        "task_group": "api",
    }
    assert identity_of(labels).name == "ledger-api"


@pytest.mark.parametrize(
    ("labels", "name"),
    [
        # kube-state-metrics reports on other pods: its series are theirs.
        (
            {"job": "kube-state-metrics", "namespace": "search", "pod": "search-indexer-7d9c8b6f5-q2lxw"},
            "search-indexer",
        ),
        # kube-prometheus adds the collector's Kubernetes service beside its job.
        (
            {
                "service": "kps-kube-state-metrics",
                "job": "kube-state-metrics",
                "namespace": "search",
                "pod": "search-indexer-7d9c8b6f5-q2lxw",
            },
            "search-indexer",
        ),
        # cAdvisor's series, scraped by the kubelet job.
        (
            {
                "job": "kubelet",
                "namespace": "policy",
                "pod": "policy-pricer-5b8f6c7d4-xq2lm",
                "container": "app",
            },
            "policy-pricer",
        ),
        # An app's own series keep its job; an explicit service of its own keeps naming it.
        ({"job": "checkout", "namespace": "shop", "pod": "checkout-7d9f8b6c5d-x2x7k"}, "checkout"),
        ({"service": "billing", "pod": "x-7d9f8b6c4d-x2k4p"}, "billing"),
    ],
)
def test_a_collectors_series_about_another_workload_are_that_workloads(
    labels: dict[str, str], name: str
) -> None:
    assert name_of(labels) == name

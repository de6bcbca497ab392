"""Label sets with none of the identity list's labels are named by a vendor's naming dimension."""

from __future__ import annotations

import pytest

from tools.identity import identity_of


@pytest.mark.parametrize(
    ("labels", "name"),
    [
        ({"DBInstanceIdentifier": "ledger-prod-7"}, "ledger-prod-7"),
        ({"CacheClusterId": "sessions-002"}, "sessions-002"),
        ({"function_name": "orders-handler", "source": "cloudwatch"}, "orders-handler"),
        ({"TableName": "orders-book"}, "orders-book"),
        ({"env": "prod", "host": "web-node-4"}, "web-node-4"),
        ({"alertname": "ReplicaLagHigh", "DBInstanceIdentifier": "r-1", "severity": "warning"}, "r-1"),
        # A named resource before the machine it runs on (`host` sorts first by key).
        ({"alertname": "CheckpointFailing", "host": "jm-1", "job_name": "sessionize"}, "sessionize"),
        ({"cluster": "east", "TableName": "orders-book"}, "orders-book"),
        # A managed database on its server, under an account's opaque id: the database is the system.
        (
            {"subscription_id": "6c1e0f4a-93d2-4b5e", "server": "sql-weu-1", "database": "ledger-sqldb"},
            "ledger-sqldb",
        ),
        ({"subscription_id": "6c1e0f4a-93d2-4b5e", "server": "sql-weu-1"}, "sql-weu-1"),
    ],
)
def test_a_vendor_dimension_names_the_system(labels: dict[str, str], name: str) -> None:
    assert identity_of(labels).name == name


def test_listed_labels_still_come_first_and_ids_of_other_things_name_nothing() -> None:
    assert identity_of({"service": "api", "host": "web-node-4"}).name == "api"
    assert identity_of({"pid": "4242", "grid": "north"}).name is None
    assert identity_of({"alertname": "Watchdog", "severity": "none"}).empty


def test_a_cloud_namespace_is_no_kubernetes_scope() -> None:
    """CloudWatch's `namespace="AWS/SQS"` names a product; the queue its dimension names is the system."""
    alarm = {"alertname": "q-Visible-ALARM", "namespace": "AWS/SQS", "queue_name": "parcel-events"}
    assert identity_of(alarm).name == "parcel-events"
    assert identity_of({"namespace": "team-a", "deployment": "web"}).name == "web"  # a real one still scopes


def test_an_opaque_id_gives_way_to_its_given_name_and_a_number_names_nothing() -> None:
    ec2 = {"instance_id": "i-0c41f7d2a9e5b3816", "name": "batch-7", "region": "ap-southeast-2"}
    assert identity_of(ec2).name == "batch-7"
    assert identity_of({"instance_id": "i-0c41f7d2a9e5b3816"}).name == "i-0c41f7d2a9e5b3816"  # all it has
    monitor = {"monitor_id": "47700218", "device": "/dev/nvme1n1"}  # a monitor's own id
    assert identity_of(monitor).name is None and identity_of(monitor).text == "device=/dev/nvme1n1"


@pytest.mark.parametrize(
    ("labels", "name"),
    [
        # A cloud exporter's job relays a vendor's metrics about the resource its naming label names.
        (
            {
                "job": "stackdriver-exporter",
                "instance": "stackdriver-exporter:9255",
                "database_id": "proj-prod:plots-pg",
                "database": "plots",
                "user": "plotwise",
            },
            "plots-pg",
        ),
        (
            {"job": "yace", "instance": "10.0.3.4:5000", "dimension_DBInstanceIdentifier": "ledger-db"},
            "ledger-db",
        ),
        # An app's own series with a plain id, and a job's resource that shares its name, keep the job.
        ({"job": "orders", "instance": "10.0.0.5:8080", "tenant_id": "acme"}, "orders"),
        ({"job": "ledger-db", "DBInstanceIdentifier": "ledger-db-1"}, "ledger-db"),
    ],
)
def test_a_scrape_job_relaying_a_vendors_metrics_is_named_by_the_resource(
    labels: dict[str, str], name: str
) -> None:
    assert identity_of(labels).name == name


@pytest.mark.parametrize(
    ("labels", "name"),
    [
        # A job named for its software is the deployment its cluster label spells with that software.
        (
            {"job": "cassandra", "cluster": "playstate-cassandra", "instance": "pst-cass-01:7070"},
            "playstate-cassandra",
        ),
        ({"job": "elasticsearch", "cluster_name": "logs_elasticsearch"}, "logs_elasticsearch"),
        # A cluster that only says where it runs (an external label on every series) names nothing.
        ({"job": "cassandra", "cluster": "prod-eu1", "instance": "pst-cass-01:7070"}, "cassandra"),
        ({"job": "cassandra", "cluster": "cassandra"}, "cassandra"),
    ],
)
def test_a_software_job_is_the_deployment_its_cluster_names(labels: dict[str, str], name: str) -> None:
    assert identity_of(labels).name == name


def test_a_cloud_project_or_region_is_where_a_resource_lives_not_which_it_is() -> None:
    """A relayed subscription's series carry its project first by key: the subscription names it."""
    labels = {"project_id": "quill-prd", "subscription_id": "invoice-events-ledger-push"}
    assert identity_of(labels).name == "invoice-events-ledger-push"
    assert identity_of({"location": "europe-west1", "queue_name": "renders"}).name == "renders"

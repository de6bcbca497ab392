"""The PromQL selector parser the metrics fixture serves, on plain strings."""

from __future__ import annotations

import pytest

from tools.prometheus.selector import SelectorError, parse_selector

LEDGER = {"service": "ledger", "quantile": "0.99"}


@pytest.mark.parametrize(
    ("text", "metric", "labels", "selected"),
    [
        ("app_latency", "app_latency", LEDGER, True),
        ("app_latency", "app_errors", LEDGER, False),
        ('app_latency{service="ledger"}', "app_latency", LEDGER, True),
        ("app_latency{service='ledger'}", "app_latency", LEDGER, True),
        ("app_latency{service=`ledger`}", "app_latency", LEDGER, True),
        ('app_latency{service="relay"}', "app_latency", LEDGER, False),
        ('app_latency{service!="relay"}', "app_latency", LEDGER, True),
        ('app_latency{service=~"led.*"}', "app_latency", LEDGER, True),
        ('app_latency{service=~"led"}', "app_latency", LEDGER, False),  # anchored, like Prometheus
        ('app_latency{service!~"led.*"}', "app_latency", LEDGER, False),
        ('{__name__=~"app_.*", service="ledger"}', "app_latency", LEDGER, True),
        ('{__name__=~"app_.*", service="ledger"}', "db_latency", LEDGER, False),
        ('  app_latency { service = "ledger" , quantile="0.99", }  ', "app_latency", LEDGER, True),
        ('app_latency{zone=""}', "app_latency", LEDGER, True),  # a missing label reads as ""
        ('app:latency:rate5m{service="ledger"}', "app:latency:rate5m", LEDGER, True),
        ('{service="a\\"b"}', "x", {"service": 'a"b'}, True),
        ('{service=~"a\\\\d"}', "x", {"service": "a7"}, True),
    ],
)
def test_selector_matches_like_prometheus(
    text: str, metric: str, labels: dict[str, str], selected: bool
) -> None:
    assert parse_selector(text).matches(metric, labels) is selected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{}",
        '{service=~".*"}',  # matches everything: Prometheus refuses it too
        'rate(app_latency{service="ledger"}[5m])',
        "sum(app_latency)",
        "app_latency[5m]",
        'app_latency{service="ledger"',
        'app_latency{service="ledger}',
        "app_latency{service=ledger}",
        'app_latency{service=="x"}',
        'app_latency{1abc="x"}',
        'app_latency{service="x"} + 1',
        'app_latency{service=~"("}',
        'app_latency{service="\\q"}',
        "app_latency offset 5m",
    ],
)
def test_anything_but_a_selector_is_refused(text: str) -> None:
    with pytest.raises(SelectorError):
        parse_selector(text)

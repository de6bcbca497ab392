"""The PromQL subset the world fixture evaluates (what typed reads are made of), on plain samples."""

from __future__ import annotations

import math

import pytest

from tools.prometheus.evaluator import evaluate, parse
from tools.prometheus.fixture import evaluate as lookback
from tools.prometheus.selector import SelectorError

STAMPS = [60.0 * m for m in range(11)]
SERIES = [
    ("requests_total", {"job": "api", "instance": "a", "code": "200"}, [(t, 6.0 * t) for t in STAMPS]),
    ("requests_total", {"job": "api", "instance": "b", "code": "500"}, [(t, 0.5 * t) for t in STAMPS]),
    # A restart halfway: the counter starts again from zero, which is an increase, not a drop.
    ("restarts_total", {"job": "api"}, [(t, t if t < 300 else t - 300) for t in STAMPS]),
    *(
        ("latency_seconds_bucket", {"job": "api", "le": le}, [(t, share * t) for t in STAMPS])
        for le, share in (("0.1", 0.5), ("1", 0.9), ("+Inf", 1.0))
    ),
]


def _at(promql: str, t: float = 600.0) -> dict[tuple[tuple[str, str], ...], float]:
    points = evaluate(parse(promql), SERIES, [t], lookback)
    return {labels: values[-1][1] for (_, labels), values in points.items()}


def test_rates_are_summed_by_the_labels_asked_and_lose_their_name() -> None:
    by_job = evaluate(parse("sum by (job) (rate(requests_total[5m]))"), SERIES, [600.0], lookback)

    assert list(by_job) == [("", (("job", "api"),))]
    assert math.isclose(next(iter(by_job.values()))[0][1], 6.5)
    assert _at('max(rate(requests_total{code="500"}[5m]))') == {(): 0.5}


def test_a_counter_reset_counts_from_zero() -> None:
    # Samples in (0, 600]: 60..240, then 0..300 after the restart; 480 counted over 540 s (the
    # fixture does not extrapolate to the window's edges as Prometheus does).
    assert math.isclose(_at("rate(restarts_total[10m])")[(("job", "api"),)], 480 / 540)


def test_histogram_quantiles_interpolate_inside_the_bucket() -> None:
    [value] = _at("histogram_quantile(0.5, sum by (le, job) (rate(latency_seconds_bucket[5m])))").values()

    assert math.isclose(value, 0.1 * (0.5 / 0.5))  # the median falls at the 0.1 bucket's bound
    [p99] = _at("histogram_quantile(0.99, sum by (le) (rate(latency_seconds_bucket[5m])))").values()
    assert p99 == 1.0  # in the +Inf bucket: its lower bound, as Prometheus answers


@pytest.mark.parametrize(
    "promql",
    [
        "requests_total * 2",
        "rate(requests_total)",
        "bottomk(3, requests_total)",
        "sum by (job (x)",
        "histogram_quantile(x, y)",
    ],
)
def test_expressions_beyond_the_subset_are_refused(promql: str) -> None:
    with pytest.raises(SelectorError):
        parse(promql)


def test_topk_keeps_the_highest_series_with_their_names() -> None:
    top = evaluate(parse("topk(1, sum by (instance) (rate(requests_total[5m])))"), SERIES, [600.0], lookback)
    named = evaluate(parse('topk(1, requests_total{job="api"})'), SERIES, [600.0], lookback)

    assert list(top) == [("", (("instance", "a"),))]
    assert [name for name, _ in named] == ["requests_total"]
    assert [dict(labels)["instance"] for _, labels in named] == ["a"]


def test_a_recording_rule_name_with_colons_is_a_metric_name() -> None:
    series = [
        ("db:connections:max", {"database_id": "prod:orders"}, [(t, 40.0) for t in STAMPS]),
        ("db:connections:max", {"database_id": "prod:catalog"}, [(t, 12.0) for t in STAMPS]),
    ]
    points = evaluate(parse("max by (database_id) (db:connections:max)"), series, [600.0], lookback)
    assert {labels: values[-1][1] for (_, labels), values in points.items()} == {
        (("database_id", "prod:orders"),): 40.0,
        (("database_id", "prod:catalog"),): 12.0,
    }


def test_a_comparison_with_a_number_filters_series_and_keeps_their_name() -> None:
    # What an engineer pastes to list what is down: `up == 0`, a ready condition `== 0`.
    down = evaluate(parse('requests_total{job="api"} < 1000'), SERIES, [600.0], lookback)

    assert [name for name, _ in down] == ["requests_total"]
    assert [dict(labels)["instance"] for _, labels in down] == ["b"]
    assert _at("rate(requests_total[5m]) >= 6") == {(("code", "200"), ("instance", "a"), ("job", "api")): 6.0}
    assert _at("sum(rate(requests_total[5m])) == 0") == {}


def test_a_bool_comparison_answers_one_or_zero_for_every_series() -> None:
    flags = evaluate(parse("requests_total > bool 1000"), SERIES, [600.0], lookback)

    assert {dict(labels)["instance"]: points[-1][1] for (_, labels), points in flags.items()} == {
        "a": 1.0,
        "b": 0.0,
    }
    assert all(name == "" for name, _ in flags)

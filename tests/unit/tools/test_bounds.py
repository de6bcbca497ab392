"""Bounded tool data: the longest prefix of the largest list that fits, exactly as JSON measures it."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tools.redaction import redact
from tools.toolbox.bounds import bound_data, json_size, masked_and_bounded

numbers = st.integers() | st.floats(allow_nan=False, allow_infinity=False)
lines = st.lists(
    st.fixed_dictionaries({"ts": st.text(max_size=25), "message": st.text(max_size=300), "n": numbers}),
    min_size=1,
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(items=lines, budget=st.integers(min_value=200, max_value=6_000))
def test_a_long_list_keeps_the_longest_prefix_that_fits(items: list[dict[str, Any]], budget: int) -> None:
    data = {"source": "logs", "lines": items}
    bounded, cut = bound_data(data, budget)
    if json_size(data) <= budget:
        assert bounded == data and not cut
        return
    assert cut and json_size(bounded) <= budget
    kept = bounded.get("lines", [])
    if "lines" in bounded and len(kept) + 1 < len(items):
        # One item more (clipped as `bound_data` clips strings) would not have fitted.
        longer = {**bounded, "lines": [*kept, _clip_like(items[len(kept)], budget)]}
        assert json_size(longer) > budget


def _clip_like(item: dict[str, Any], budget: int) -> Any:
    # The item as `bound_data` would have clipped its strings (max(64, budget // 8) characters).
    limit = max(64, budget // 8)
    return {k: v[: limit - 1] + "…" if isinstance(v, str) and len(v) > limit else v for k, v in item.items()}


def test_masking_then_bounding_a_large_log_result() -> None:
    data = {"lines": [{"message": f"user=bob password=hunter{i} ok", "i": i} for i in range(2_000)]}
    masked, cut, size = masked_and_bounded(data, 8_192, mask=redact)
    assert cut and size == json_size(masked) <= 8_192
    assert "hunter" not in str(masked)
    assert [line["i"] for line in masked["lines"]] == list(range(len(masked["lines"])))
    one_more = {"lines": [*masked["lines"], {"message": "user=bob password=[REDACTED] ok", "i": 0}]}
    assert json_size(one_more) > 8_192 - 8  # nothing like a whole line was left unused


def test_driver_types_and_huge_integers_stay_exact() -> None:
    from datetime import UTC, datetime
    from decimal import Decimal

    data = {
        "id": 2**70,
        "at": datetime(2026, 1, 2, tzinfo=UTC),
        "amount": Decimal("12.5"),
        "nan": float("nan"),
    }
    masked, cut, _ = masked_and_bounded(data, 4_096, mask=redact)
    assert not cut
    assert masked == {"id": 2**70, "at": "2026-01-02T00:00:00+00:00", "amount": 12.5, "nan": None}


def test_a_result_beyond_orjson_is_measured_with_one_encoder() -> None:
    # A huge integer sends the whole result to the standard encoder, which writes 1e-05 where
    # orjson writes 1e-5: its parts must be measured the same way or lines that fit are dropped.
    lines = [[1e-05] * 20 for _ in range(3_000)]
    bounded, cut = bound_data({"id": 2**70, "lines": lines}, 65_536)
    assert cut and json_size(bounded) <= 65_536
    one_more = {**bounded, "lines": [*bounded["lines"], lines[0]]}
    assert json_size(one_more) > 65_536


def test_a_mask_that_breaks_the_json_falls_back_to_masking_each_string() -> None:
    def breaking(text: str) -> str:
        return text.replace("hunter2", '"\\')  # what a faulty pattern could do to JSON text

    data = {"lines": [{"message": "password hunter2"}, "plain"], "n": 3}
    masked, cut, size = masked_and_bounded(data, 4_096, mask=breaking)
    assert masked == {"lines": [{"message": 'password "\\'}, "plain"], "n": 3} and not cut
    assert size == json_size(masked)

"""`number_present` finds a number among sorted readings exactly as a full scan would."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.nodes.evidence_guard.claims import Claim, number_present


def _full_scan(claim: Claim, numbers: list[float]) -> bool:
    half_unit = 0.5 * 10 ** (-claim.decimals)
    candidates = [(claim.value, half_unit)]
    if claim.percent or claim.value > 1:
        candidates.append((claim.value / 100, half_unit / 100))
    if claim.value <= 1:
        candidates.append((claim.value * 100, half_unit * 100))
    return any(
        abs(seen - wanted) <= rounding + 0.005 * max(abs(seen), abs(wanted))
        for seen in numbers
        for wanted, rounding in candidates
    )


readings = st.floats(min_value=-1e9, max_value=1e10, allow_nan=False, allow_infinity=False)


@settings(max_examples=400, deadline=None)
@given(
    numbers=st.lists(readings | st.sampled_from([0.0, 0.95, 95.0, 99.5, 1234.0]), max_size=40),
    value=st.floats(min_value=0, max_value=1e6, allow_nan=False) | st.sampled_from([0.95, 95.0, 1234.0]),
    decimals=st.integers(min_value=0, max_value=3),
    percent=st.booleans(),
)
def test_sorted_lookup_agrees_with_a_full_scan(
    numbers: list[float], value: float, decimals: int, percent: bool
) -> None:
    claim = Claim("number", str(value), value, decimals, percent)
    assert number_present(claim, sorted(numbers)) == _full_scan(claim, numbers)


def test_rounding_slack_and_percent_forms() -> None:
    def claim(value: float, decimals: int = 0, percent: bool = False) -> Claim:
        return Claim("number", str(value), value, decimals, percent)

    assert number_present(claim(95, percent=True), sorted([3.0, 0.951, 7_000.0]))
    assert number_present(claim(0.95, decimals=2), sorted([94.8, 1_000.0]))
    assert number_present(claim(1234), sorted([1_238.0]))  # within 0.5%
    assert not number_present(claim(1234), sorted([1_250.0, 12.0]))


def test_a_reading_on_the_edge_of_the_tolerance_is_found() -> None:
    # 0.1 may stand for 10 %: wanted 10.0, rounding 5.0; 15.0753... is within 5 + 0.5 % of it, at the edge.
    claim = Claim("number", "0.1", 0.1, 1, False)
    assert _full_scan(claim, [15.075376884422111])
    assert number_present(claim, [15.075376884422111])

"""Extracts the checkable claims of a statement: quotes, error names, times, entities, numbers."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tools.digest.labels import name_pattern

_QUOTED = re.compile(r"\"([^\"]{3,})\"|'([^']{3,})'|`([^`]{3,})`")
_ISO_TIME = re.compile(r"\b(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_CLOCK_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::\d{2})?(?![\d:])")
_ERROR_NAME = re.compile(
    r"\b[A-Za-z][\w.]*(?:Error|Exception|Timeout)\b|\bE[A-Z]{4,}\b|\b[A-Z]{2,}_[A-Z_]{2,}\b"
)
_CODE_NAME = re.compile(r"(?<![\w.-])[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*\d[a-z0-9]*(?:[-_.][a-z0-9]+)*")
_NUMBER = re.compile(r"(?<![\w.:/-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s?(%|x\b)?(?![\w:/])")
# Counting words and sentence numbering are not measurements; 0 and 1 carry no checkable claim.
_TRIVIAL = frozenset({0.0, 1.0})


@dataclass(frozen=True, slots=True)
class Claim:
    kind: str  # quote | error | time | entity | code | number
    text: str  # what must be found (lower-cased), or the number as written
    value: float = 0.0
    decimals: int = 0
    percent: bool = False


def extract_claims(statement: str, entities: Iterable[str]) -> list[Claim]:
    """Every claim in `statement` that its cited evidence must contain."""
    claims: list[Claim] = []
    rest = statement
    for match in _QUOTED.finditer(statement):
        quoted = next(group for group in match.groups() if group)
        claims.append(Claim("quote", quoted.strip().lower()))
    rest = _QUOTED.sub(" ", rest)
    for match in _ISO_TIME.finditer(rest):
        claims.append(Claim("time", f"{match.group(1)}t{match.group(2)}"))
    rest = _ISO_TIME.sub(" ", rest)
    for match in _CLOCK_TIME.finditer(rest):
        claims.append(Claim("time", f"t{int(match.group(1)):02d}:{match.group(2)}"))
    rest = _CLOCK_TIME.sub(" ", rest)
    for match in _ERROR_NAME.finditer(rest):
        claims.append(Claim("error", match.group(0).lower()))
    lowered = rest.lower()
    for entity in sorted(set(entities), key=len, reverse=True):
        if entity not in lowered:  # cheap test first: most of a run's names are not in a statement
            continue
        pattern = name_pattern(entity)
        if pattern.search(lowered):
            claims.append(Claim("entity", entity))
            lowered = pattern.sub(" ", lowered)
    for match in _CODE_NAME.finditer(lowered):
        token = match.group(0).strip(".")
        if re.search(r"[a-z]", token) and re.search(r"[-_.]", token):
            claims.append(Claim("code", token))
    lowered = _CODE_NAME.sub(" ", lowered)
    for match in _NUMBER.finditer(lowered):
        claims.extend(_number_claim(match))
    return claims


def _number_claim(match: re.Match[str]) -> list[Claim]:
    whole, fraction, unit = match.group(1), match.group(2) or "", match.group(3) or ""
    value = float(whole.replace(",", "") + fraction)
    if value in _TRIVIAL and not unit:
        return []
    decimals = len(fraction) - 1 if fraction else 0
    return [Claim("number", match.group(0).strip(), value, decimals, percent=unit == "%")]


def number_present(claim: Claim, numbers: Sequence[float]) -> bool:
    """Tolerant match: rounding to the written precision, 0.5% slack, and 0.95 <-> 95%.

    `numbers` must be sorted: only the few values near each reading of the claim are compared.
    """
    half_unit = 0.5 * 10 ** (-claim.decimals)
    candidates = [(claim.value, half_unit)]
    if claim.percent or claim.value > 1:
        candidates.append((claim.value / 100, half_unit / 100))
    if claim.value <= 1:
        candidates.append((claim.value * 100, half_unit * 100))
    for wanted, rounding in candidates:
        # |seen - wanted| <= rounding + 0.005 * max(|seen|, |wanted|) implies |seen - wanted| <= reach;
        # widened a little, so a reading on the edge is not lost to float rounding of the window.
        reach = (rounding + 0.005 * abs(wanted)) / 0.995 * (1 + 1e-9) + 1e-12
        index = bisect_left(numbers, wanted - reach)
        while index < len(numbers) and numbers[index] <= wanted + reach:
            seen = numbers[index]
            if abs(seen - wanted) <= rounding + 0.005 * max(abs(seen), abs(wanted)):
                return True
            index += 1
    return False

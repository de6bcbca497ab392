"""Charts of the metric evidence in the chat report and on the trace page, against the real app:
each metric finding draws its evidence's series (the polyline's points are the payload's points,
which `tests/unit/graph/test_finding_charts.py` holds to the evidence), a finding without metric
evidence draws none, and a chart stays readable at 390 px with a text alternative citing its values."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Locator, Page, expect

from tests.browser.chat_page import ask, open_chat
from tests.browser.screenshots import SCREENSHOT_DIR

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def drawn_points(chart: Locator) -> list[list[list[float]]]:
    """Each polyline's points mapped back to (time, value) through the chart's own scale."""
    result: list[list[list[float]]] = await chart.evaluate(
        """svg => {
          const d = svg.dataset, n = (k) => Number(d[k]);
          const t = (x) => n("t0") + (x - n("left")) / (n("right") - n("left")) * (n("t1") - n("t0"));
          const v = (y) => n("v0") + (n("bottom") - y) / (n("bottom") - n("top")) * (n("v1") - n("v0"));
          return [...svg.querySelectorAll("polyline.series")].map((line) =>
            line.getAttribute("points").split(" ")
              .map((xy) => xy.split(",").map(Number)).map(([x, y]) => [t(x), v(y)]));
        }"""
    )
    return result


def close(drawn: list[list[float]], expected: list[list[float]], chart: dict[str, Any]) -> bool:
    """Equal within the drawing's rounding (0.01 viewBox units of a ~300-unit axis)."""
    points = [p for s in chart["series"] for p in s["points"]]
    span_t = max(p[0] for p in points) - min(p[0] for p in points) or 60
    span_v = max(abs(p[1]) for p in points) or 1
    return len(drawn) == len(expected) and all(
        abs(a[0] - b[0]) <= span_t * 1e-3 and abs(a[1] - b[1]) <= span_v * 1e-3
        for a, b in zip(drawn, expected, strict=True)
    )


async def check_report_charts(answer: Locator, payload: dict[str, Any]) -> None:
    charts = {chart["evidence_id"]: chart for chart in payload["charts"]}
    assert charts, "the demo diagnosis cites metric evidence"
    findings = answer.locator("ol.findings > li")
    assert await findings.count() == len(payload["findings"])
    without = marked = 0
    for index, finding in enumerate(payload["findings"]):
        item = findings.nth(index)
        cited = [i for i in dict.fromkeys(finding["evidence_ids"]) if i in charts]
        await expect(item.locator("figure.metric-chart")).to_have_count(len(cited))
        without += not cited
        for n, evidence_id in enumerate(cited):
            svg = item.locator("svg.chart").nth(n)
            await expect(svg).to_have_attribute("data-evidence-id", evidence_id)
            chart = charts[evidence_id]
            drawn = await drawn_points(svg)
            assert len(drawn) == len(chart["series"])
            for line, series in zip(drawn, chart["series"], strict=True):
                assert close(line, series["points"], chart)
            main = chart["series"][0]
            if main["baseline"] is not None:
                await expect(svg.locator("line.baseline")).to_have_count(1)
                await expect(svg.locator("line.change-point")).to_have_count(1)
            await expect(svg.locator("circle.peak")).to_have_count(len(chart["series"]))
            if chart["alert_window"]:
                await expect(svg.locator("rect.alert-window")).to_have_count(1)
            marked += main["baseline"] is not None and bool(chart["alert_window"])
            desc = await svg.locator("desc").text_content() or ""
            assert main["name"] in desc and "peak" in desc and "UTC" in desc
            await expect(item.locator("figcaption")).to_have_text(desc)
            await expect(item.locator(".chart-legend")).to_contain_text(main["name"])
    assert without, "some finding cites no metric evidence and draws no chart"
    # The demo diagnosis has charts with every mark: the checks above are not all skipped.
    assert marked, "some chart marks its baseline, change point and alert window"


async def test_metric_findings_draw_their_evidence_in_chat_and_trace(page: Page, real_url: str) -> None:
    await page.set_viewport_size({"width": 390, "height": 844})
    await open_chat(page, real_url)
    answer = await ask(page, "why is checkout slow?")
    href = await answer.locator("a.trace-link").get_attribute("href")
    assert href is not None
    params = dict(part.split("=", 1) for part in href.split("?", 1)[1].split("&"))
    async with httpx.AsyncClient(base_url=real_url, timeout=10) as client:
        trace = (
            await client.get(f"/api/diagnosis/{params['sessionId']}/trace", params={"runId": params["runId"]})
        ).json()["data"]
    payload = trace["answer"]["payload"]
    await check_report_charts(answer, payload)

    first = answer.locator("svg.chart").first
    box = await first.bounding_box()
    assert box is not None and box["width"] <= 390
    tick = await first.locator("text.tick").first.bounding_box()
    assert tick is not None and tick["height"] >= 9  # readable text at 390 px
    overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0  # the charts fit a phone's width
    await first.focus()
    assert await page.evaluate("document.activeElement.tagName.toLowerCase()") == "svg"

    await page.goto(f"{real_url}/{href}")
    await expect(page.locator("#trace-state")).to_contain_text("Trace loaded")
    await check_report_charts(page.locator("#answer"), payload)


async def test_chart_screenshot_for_the_readme(browser: Browser, real_url: str) -> None:
    """`docs/screenshots/chart.png`: the first chart of a demo diagnosis, at a phone's width."""
    context = await browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    try:
        page = await context.new_page()
        await open_chat(page, real_url)
        answer = await ask(page, "why is checkout slow?")
        figure = answer.locator("figure.metric-chart").first
        await figure.scroll_into_view_if_needed()
        image = await figure.screenshot(path=str(SCREENSHOT_DIR / "chart.png"))
        assert image.startswith(b"\x89PNG")
    finally:
        await context.close()

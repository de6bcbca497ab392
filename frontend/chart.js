// Inline SVG charts of a report's metric evidence (the payload's `charts`, built by the server from
// the run's stored evidence). No library, no external script: the series as polylines, the baseline
// dashed, the change point as a vertical line, the peak as a dot, the alert's firing window shaded,
// axes with the unit and UTC times. Every chart is a focusable figure whose <desc> and caption say the
// values the claim cites. All text is inserted as text.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 360; // viewBox units: the figure scales to its container (readable at 390 px)
const HEIGHT = 200;
const PAD = { left: 52, right: 10, top: 12, bottom: 40 };
const COLOURS = ["#1f5fbf", "#b8430f", "#2f7d32", "#7b3fa0"];
let chartCount = 0;

const finite = (value) => typeof value === "number" && Number.isFinite(value);
const isPoint = (p) => Array.isArray(p) && p.length === 2 && finite(p[0]) && finite(p[1]);

/** True for a chart the server sends (`graph/nodes/composer/charts.py`); anything else draws nothing. */
export function isChart(chart) {
  return (
    chart !== null && typeof chart === "object" && typeof chart.evidence_id === "string" &&
    typeof chart.title === "string" && typeof chart.unit === "string" &&
    Array.isArray(chart.series) && chart.series.length > 0 &&
    chart.series.every((s) => s && typeof s.name === "string" && Array.isArray(s.points) && s.points.length > 0 && s.points.every(isPoint))
  );
}

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  }
  if (text !== null) node.textContent = text;
  return node;
}

/** A value with its unit, 4 significant digits (`0.2009 s`, `6.784 /s`, `37`). */
export function withUnit(value, unit) {
  const text = Math.abs(value) >= 1e5 || (value !== 0 && Math.abs(value) < 1e-3) ? value.toExponential(2) : String(Number(value.toPrecision(4)));
  return unit ? `${text} ${unit}` : text;
}

/** UTC time of a unix timestamp: `09:25`, with the date when the chart spans days. */
export function utcTime(seconds, withDate = false) {
  const iso = new Date(seconds * 1000).toISOString();
  return withDate ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

function bounds(chart) {
  const points = chart.series.flatMap((s) => s.points);
  const times = points.map((p) => p[0]);
  const values = points.map((p) => p[1]);
  for (const s of chart.series) if (finite(s.baseline)) values.push(s.baseline);
  let [t0, t1] = [Math.min(...times), Math.max(...times)];
  let [v0, v1] = [Math.min(0, ...values), Math.max(...values)];
  if (t1 === t0) t1 = t0 + 60;
  if (v1 === v0) v1 = v0 + 1;
  return { t0, t1, v0, v1 };
}

function describe(chart) {
  const main = chart.series[0];
  const spansDays = bounds(chart).t1 - bounds(chart).t0 > 86400;
  const parts = [`${chart.title}, ${main.name}: ${main.points.length} points from ${utcTime(main.points[0][0], spansDays)} to ${utcTime(main.points.at(-1)[0], spansDays)} UTC`];
  if (finite(main.baseline)) parts.push(`baseline ${withUnit(main.baseline, chart.unit)}`);
  if (finite(main.change_at)) parts.push(`change at ${utcTime(main.change_at, spansDays)} UTC`);
  if (isPoint(main.peak)) parts.push(`peak ${withUnit(main.peak[1], chart.unit)} at ${utcTime(main.peak[0], spansDays)} UTC`);
  if (Array.isArray(chart.alert_window) && finite(chart.alert_window[0])) parts.push(`alert firing from ${utcTime(chart.alert_window[0], spansDays)} UTC`);
  if (chart.series.length > 1) parts.push(`also ${chart.series.slice(1).map((s) => s.name).join(", ")}`);
  return parts.join("; ") + ".";
}

/** The <figure> of one chart: an accessible SVG and a caption citing its values. */
export function metricChart(chart) {
  const id = `chart-${++chartCount}`;
  const { t0, t1, v0, v1 } = bounds(chart);
  const [left, right, top, bottom] = [PAD.left, WIDTH - PAD.right, PAD.top, HEIGHT - PAD.bottom];
  const x = (t) => left + ((t - t0) / (t1 - t0)) * (right - left);
  const y = (v) => bottom - ((v - v0) / (v1 - v0)) * (bottom - top);
  const round = (n) => Math.round(n * 100) / 100;
  const spansDays = t1 - t0 > 86400;
  const text = describe(chart);

  const root = svg("svg", {
    class: "chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", tabindex: "0",
    "aria-labelledby": `${id}-title ${id}-desc`, "data-evidence-id": chart.evidence_id,
    "data-t0": t0, "data-t1": t1, "data-v0": v0, "data-v1": v1,
    "data-left": left, "data-right": right, "data-top": top, "data-bottom": bottom,
  });
  root.append(svg("title", { id: `${id}-title` }, `${chart.title} (${chart.evidence_id})`), svg("desc", { id: `${id}-desc` }, text));

  const window = chart.alert_window;
  if (Array.isArray(window) && finite(window[0]) && window[0] < t1) {
    const start = Math.max(window[0], t0);
    const end = finite(window[1]) ? Math.min(window[1], t1) : t1;
    root.append(svg("rect", { class: "alert-window", x: round(x(start)), y: top, width: round(Math.max(0, x(end) - x(start))), height: bottom - top }));
  }
  // Axes: the value axis with its unit at three levels, the time axis at its ends and middle (UTC).
  root.append(svg("line", { class: "axis", x1: left, y1: bottom, x2: right, y2: bottom }), svg("line", { class: "axis", x1: left, y1: top, x2: left, y2: bottom }));
  for (const value of [v0, (v0 + v1) / 2, v1]) {
    root.append(svg("line", { class: "grid", x1: left, y1: round(y(value)), x2: right, y2: round(y(value)) }));
    root.append(svg("text", { class: "tick", x: left - 4, y: round(y(value)) + 4, "text-anchor": "end" }, withUnit(value, chart.unit)));
  }
  for (const [t, anchor] of [[t0, "start"], [(t0 + t1) / 2, "middle"], [t1, "end"]]) {
    root.append(svg("text", { class: "tick", x: round(x(t)), y: bottom + 14, "text-anchor": anchor }, utcTime(t, spansDays)));
  }
  root.append(svg("text", { class: "tick", x: right, y: HEIGHT - 4, "text-anchor": "end" }, "time (UTC)"));

  chart.series.forEach((series, index) => {
    const colour = COLOURS[index % COLOURS.length];
    root.append(svg("polyline", {
      class: "series", "data-series": index, fill: "none", stroke: colour,
      points: series.points.map(([t, v]) => `${round(x(t))},${round(y(v))}`).join(" "),
    }));
    if (finite(series.baseline)) root.append(svg("line", { class: "baseline", "data-series": index, x1: left, x2: right, y1: round(y(series.baseline)), y2: round(y(series.baseline)) }));
    if (finite(series.change_at) && series.change_at >= t0 && series.change_at <= t1) {
      root.append(svg("line", { class: "change-point", "data-series": index, x1: round(x(series.change_at)), x2: round(x(series.change_at)), y1: top, y2: bottom }));
    }
    if (isPoint(series.peak)) root.append(svg("circle", { class: "peak", "data-series": index, cx: round(x(series.peak[0])), cy: round(y(series.peak[1])), r: 3.5, fill: colour }));
  });

  const legend = document.createElement("ul");
  legend.className = "chart-legend";
  chart.series.forEach((series, index) => {
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = `swatch swatch-${index % COLOURS.length}`;
    swatch.setAttribute("aria-hidden", "true");
    item.append(swatch, document.createTextNode(`${series.name} (${series.metric || chart.title})`));
    legend.append(item);
  });
  const caption = document.createElement("figcaption");
  caption.textContent = text;
  const figure = document.createElement("figure");
  figure.className = "metric-chart";
  figure.append(root, legend, caption);
  return figure;
}

/** Charts of a payload by the evidence id they draw (invalid ones left out). */
export function chartsByEvidence(charts) {
  return new Map((Array.isArray(charts) ? charts : []).filter(isChart).map((chart) => [chart.evidence_id, chart]));
}

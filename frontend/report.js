// Renders typed answers (diagnosis reports, plain answers) and the feedback form as DOM nodes.
// Every string from a user, tool, log line or model goes in through textContent, never as markup.

import { postFeedback } from "./api.js";
import { chartsByEvidence, metricChart } from "./chart.js";
import { lookupView } from "./lookup.js";

/** Build an element; `children` are nodes or strings (strings become text nodes). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** A status label that reads without colour: a shape icon plus the word. */
export function badge(kind, label) {
  const icons = { ok: "✓", fail: "✗", warn: "⚠", info: "•", busy: "…" };
  return el("span", { class: `badge badge-${kind}` }, el("span", { "aria-hidden": "true", text: icons[kind] ?? "•" }), ` ${label}`);
}

const STATUS_KIND = { ok: "ok", success: "ok", empty: "info", unavailable: "warn", refused: "fail", failed: "fail", error: "fail" };

/** Badge for an evidence / tool / step status string. */
export function statusBadge(status) {
  return badge(STATUS_KIND[String(status).toLowerCase()] ?? "info", String(status));
}

function section(title, ...content) {
  return el("section", { class: "report-section" }, el("h3", { text: title }), ...content);
}

function confidenceText(value) {
  const percent = value <= 1 ? Math.round(value * 100) : Math.round(value);
  return `${Math.max(0, Math.min(100, percent))}%`;
}

function rootCauseView(rootCause) {
  if (!rootCause) return section("Root cause", el("p", { class: "muted", text: "No root cause identified." }));
  const confidence = confidenceText(rootCause.confidence);
  return section(
    "Root cause",
    el("p", { class: "root-statement", text: rootCause.statement }),
    el(
      "dl",
      { class: "facts" },
      el("dt", { text: "Service" }), el("dd", { text: rootCause.service }),
      el("dt", { text: "Category" }), el("dd", { text: rootCause.category }),
      el("dt", { text: "Confidence" }),
      el("dd", {}, el("meter", { min: 0, max: 100, value: parseInt(confidence, 10), "aria-label": "confidence" }), ` ${confidence}`),
    ),
  );
}

function evidenceChip(id, evidenceById) {
  const item = evidenceById.get(id);
  const title = item ? `${item.source} · ${item.title} (${item.status})` : "not in the evidence list";
  return el("span", { class: "chip", title }, el("span", { "aria-hidden": "true", text: "▣ " }), id);
}

function findingsView(findings, evidenceById, charts = new Map()) {
  if (findings.length === 0) return null;
  const items = findings.map((finding) =>
    el(
      "li",
      {},
      el("p", { text: finding.statement }),
      el("p", { class: "chips" }, el("span", { class: "sr-label", text: "Evidence: " }), ...finding.evidence_ids.map((id) => evidenceChip(id, evidenceById))),
      // The metric evidence it cites, drawn (chart.js); a finding without metric evidence draws none.
      ...[...new Set(finding.evidence_ids)].filter((id) => charts.has(id)).map((id) => metricChart(charts.get(id))),
    ),
  );
  return section("Findings", el("ol", { class: "findings" }, items));
}

/** A table of evidence items: id, source, tool, title, status. */
export function evidenceTable(evidence) {
  const rows = evidence.map((item) =>
    el("tr", {}, el("td", {}, el("code", { text: item.id })), el("td", { text: item.source }), el("td", { text: item.tool }), el("td", { text: item.title }), el("td", {}, statusBadge(item.status))),
  );
  const head = el("tr", {}, ...["Id", "Source", "Tool", "Title", "Status"].map((h) => el("th", { scope: "col", text: h })));
  return el("div", { class: "table-wrap" }, el("table", {}, el("thead", {}, head), el("tbody", {}, rows)));
}

function listSection(title, items, render) {
  if (items.length === 0) return null;
  return section(title, el("ul", {}, items.map((item) => el("li", {}, ...render(item)))));
}

// `verdict` (incident, healthy, inconclusive) when the server sends it; older reports carry `healthy` only.
const VERDICT_BADGES = { incident: ["fail", "Problem found"], healthy: ["ok", "Healthy"], inconclusive: ["warn", "Inconclusive"] };

function verdictBadge(payload) {
  const shown = VERDICT_BADGES[payload.verdict] ?? (payload.healthy ? VERDICT_BADGES.healthy : VERDICT_BADGES.incident);
  return badge(...shown);
}

function reportView(payload) {
  const evidenceById = new Map(payload.evidence.map((item) => [item.id, item]));
  const header = el(
    "p",
    { class: "report-badges" },
    verdictBadge(payload),
    payload.degraded ? badge("warn", "Degraded (fallback)") : null,
  );
  return el(
    "article",
    { class: "report", "data-content-type": "diagnosis_report" },
    header,
    el("p", { class: "summary", text: payload.summary }),
    rootCauseView(payload.root_cause),
    findingsView(payload.findings, evidenceById, chartsByEvidence(payload.charts)),
    listSection("Recommendations", payload.recommendations, (r) => [
      el("span", { text: r.action }),
      r.runbook ? el("span", { class: "runbook" }, " — runbook: ", el("code", { text: r.runbook })) : null,
    ]),
    listSection("Open questions", payload.open_questions, (q) => [q]),
    listSection("Ruled out", payload.ruled_out, (r) => [el("strong", { text: r.service }), `: ${r.reason}`]),
    payload.evidence.length ? el("details", { class: "evidence" }, el("summary", { text: `Evidence (${payload.evidence.length})` }), evidenceTable(payload.evidence)) : null,
  );
}

function answerView(payload) {
  const paragraphs = payload.text.split(/\n{2,}/).map((part) => el("p", { text: part }));
  return el(
    "article",
    { class: "report", "data-content-type": "answer" },
    payload.degraded ? el("p", { class: "report-badges" }, badge("warn", "Degraded (fallback)")) : null,
    ...paragraphs,
    listSection("Sources", payload.sources, (s) => [el("code", { text: s.id }), ` ${s.title}`]),
  );
}

/** Render a validated `{content_type, payload}` (see api.isTypedContent). */
export function contentView(content) {
  if (content.content_type === "lookup_result") return lookupView(content.payload);
  return content.content_type === "diagnosis_report" ? reportView(content.payload) : answerView(content.payload);
}

/** Render a bare diagnosis report payload (the AIOps stream's content). */
export function reportPayloadView(payload) {
  return reportView(payload);
}

/** Useful / not useful buttons plus an optional comment, bound to one run. */
export function feedbackForm(sessionId, runId) {
  const comment = el("input", { type: "text", name: "comment", maxlength: 2000, placeholder: "Optional comment", "aria-label": "Feedback comment" });
  const state = el("span", { class: "feedback-state", role: "status" });
  const useful = el("button", { type: "button", class: "secondary", "data-useful": "true" }, el("span", { "aria-hidden": "true", text: "▲ " }), "Useful");
  const notUseful = el("button", { type: "button", class: "secondary", "data-useful": "false" }, el("span", { "aria-hidden": "true", text: "▼ " }), "Not useful");
  const form = el("div", { class: "feedback", role: "group", "aria-label": "Feedback on this answer" }, useful, notUseful, comment, state);
  const submit = async (value) => {
    useful.disabled = notUseful.disabled = comment.disabled = true;
    state.textContent = "Sending…";
    try {
      await postFeedback({ sessionId, runId, useful: value, comment: comment.value.trim() });
      state.replaceChildren(badge("ok", value ? "Thanks — marked useful" : "Thanks — marked not useful"));
    } catch (error) {
      useful.disabled = notUseful.disabled = comment.disabled = false;
      state.replaceChildren(badge("fail", `Feedback not saved: ${error.message}`));
    }
  };
  useful.addEventListener("click", () => submit(true));
  notUseful.addEventListener("click", () => submit(false));
  return form;
}

// Trace page: everything the server recorded about one run (?sessionId=..&runId=..), drawn from
// GET /api/diagnosis/{sessionId}/trace. All recorded strings are inserted as text.

import { fetchTrace, isTypedContent } from "./api.js";
import { orchestrationDiagram } from "./diagram.js";
import { badge, contentView, el, evidenceTable, feedbackForm, statusBadge } from "./report.js";

const $ = (id) => document.getElementById(id);
const text = (value) => (value === null || value === undefined || value === "" ? "—" : String(value));
const arrayOf = (value) => (Array.isArray(value) ? value : []);

function facts(pairs) {
  return el("dl", { class: "facts" }, pairs.flatMap(([label, value]) => [el("dt", { text: label }), el("dd", {}, value instanceof Node ? value : text(value))]));
}

function summaryView(run, orchestration) {
  return facts([
    ["Query", run.query],
    ["Status", statusBadge(text(run.status))],
    ["Outcome", run.outcome === "FALLBACK" ? badge("warn", "FALLBACK") : run.outcome === "FAILED" ? badge("fail", "FAILED") : text(run.outcome)],
    ["Flow", run.agentFlow],
    ["Route", run.route],
    ["Steps", run.stepCount],
    ["Tool calls", run.toolCallCount],
    ["Created", run.createdAt],
    ["Finished", run.finishedAt],
    ["Termination", orchestration?.termination_reason],
    ["Degraded", orchestration ? (orchestration.degraded ? badge("warn", "yes") : "no") : null],
    ["Run id", el("code", { text: text(run.runId) })],
    ["Session id", el("code", { text: text(run.sessionId) })],
  ]);
}

function graphView(orchestration) {
  if (!orchestration) return [el("p", { class: "muted", text: "No orchestration trace was recorded for this run." }), orchestrationDiagram(null)];
  const path = arrayOf(orchestration.path).map(String);
  return [
    orchestrationDiagram(orchestration),
    el("p", {}, el("strong", { text: "Path: " }), path.join(" → ") || "—"),
    facts([
      ["Final node", orchestration.final_node],
      ["Evidence retries", orchestration.evidence_retry_count],
      ["Repairs", orchestration.repair_count],
    ]),
  ];
}

function stepsView(steps) {
  if (steps.length === 0) return el("p", { class: "muted", text: "No steps recorded." });
  const longest = Math.max(1, ...steps.map((s) => Number(s.durationMs) || 0));
  return el(
    "ol",
    { class: "timeline" },
    steps.map((step) => {
      const ms = Number(step.durationMs) || 0;
      const bar = el("span", { class: "bar", "aria-hidden": "true" });
      // Through the CSSOM: the Content-Security-Policy refuses style attributes, not style properties.
      bar.style.width = `${Math.max(1, Math.round((ms / longest) * 100))}%`;
      return el(
        "li",
        {},
        el("span", { text: `#${text(step.seq)}` }),
        el("span", {}, el("strong", { text: text(step.node) }), " ", statusBadge(text(step.status))),
        bar,
        el("span", { text: `${ms} ms` }),
        step.summary ? el("span", { class: "step-summary", text: String(step.summary) }) : null,
      );
    }),
  );
}

function timingsView(timings) {
  if (!timings || typeof timings !== "object") return null;
  const parts = Object.entries(timings).map(([node, ms]) => `${node} ${text(ms)} ms`);
  return el("p", { class: "muted" }, el("strong", { text: "Node timings: " }), parts.join(" · "));
}

function toolsView(invocations) {
  if (invocations.length === 0) return el("p", { class: "muted", text: "No tool invocations." });
  const head = ["#", "Tool", "Evidence", "Status", "Duration", "Bytes", "Arguments", "Result"];
  const rows = invocations.map((t) =>
    el("tr", {}, el("td", { text: text(t.seq) }), el("td", {}, el("code", { text: text(t.tool) })), el("td", {}, el("code", { text: text(t.evidenceId) })), el("td", {}, statusBadge(text(t.status))), el("td", { text: `${text(t.durationMs)} ms` }), el("td", { text: text(t.bytes) }), el("td", { text: text(t.argsSummary) }), el("td", { text: text(t.resultSummary) })),
  );
  return el("div", { class: "table-wrap" }, el("table", {}, el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col", text: h })))), el("tbody", {}, rows)));
}

function evidenceView(answer) {
  const listsEvidence = ["diagnosis_report", "lookup_result"].includes(answer?.content_type);
  if (listsEvidence && Array.isArray(answer.payload?.evidence) && answer.payload.evidence.length) {
    return evidenceTable(answer.payload.evidence.map((e) => ({ id: text(e.id), source: text(e.source), tool: text(e.tool), title: text(e.title), status: text(e.status) })));
  }
  if (answer && answer.content_type === "answer" && Array.isArray(answer.payload?.sources) && answer.payload.sources.length) {
    return el("ul", {}, answer.payload.sources.map((s) => el("li", {}, el("code", { text: text(s.id) }), ` ${text(s.title)}`)));
  }
  return el("p", { class: "muted", text: "No evidence was released with this answer." });
}

// Self-evaluation has no fixed shape: render any JSON as a nested list of text.
function valueTree(value) {
  if (value === null || typeof value !== "object") {
    if (value === true) return badge("ok", "true");
    if (value === false) return badge("fail", "false");
    return document.createTextNode(text(value));
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i + 1), v]) : Object.entries(value);
  if (entries.length === 0) return document.createTextNode("—");
  return el("ul", { class: "kv" }, entries.map(([key, v]) => el("li", {}, el("strong", { text: `${key}: ` }), valueTree(v))));
}

function guardView(orchestration, selfEvaluation) {
  const guard = orchestration
    ? facts([
        ["EvidenceGuard retries", orchestration.evidence_retry_count],
        ["Repairs", orchestration.repair_count],
        ["Released degraded", orchestration.degraded ? badge("warn", "yes") : "no"],
      ])
    : null;
  const evaluation = selfEvaluation ? valueTree(selfEvaluation) : el("p", { class: "muted", text: "No self-evaluation recorded." });
  return [guard, el("h3", { text: "Self-evaluation" }), evaluation];
}

function feedbackView(feedback, run) {
  if (feedback) {
    return el("p", {}, feedback.useful ? badge("ok", "Useful") : badge("fail", "Not useful"), feedback.comment ? ` — ${feedback.comment}` : "");
  }
  return [el("p", { class: "muted", text: "No feedback yet." }), feedbackForm(run.sessionId, run.runId)];
}

function render(data) {
  const run = data.run ?? {};
  const orchestration = run.orchestrationTrace ?? null;
  const answer = data.answer ?? null;
  $("summary").replaceChildren(summaryView(run, orchestration));
  $("graph").replaceChildren(...graphView(orchestration));
  $("steps").replaceChildren(...[stepsView(arrayOf(data.steps)), timingsView(orchestration?.node_timings_ms)].filter(Boolean));
  $("tools").replaceChildren(toolsView(arrayOf(data.toolInvocations)));
  $("evidence").replaceChildren(evidenceView(answer));
  $("guard").replaceChildren(...[guardView(orchestration, data.selfEvaluation ?? null)].flat().filter(Boolean));
  $("answer").replaceChildren(answer && isTypedContent(answer) ? contentView(answer) : el("p", { class: "muted", text: "No answer was released." }));
  $("feedback").replaceChildren(...[feedbackView(data.feedback ?? null, run)].flat());
}

async function main() {
  const params = new URLSearchParams(location.search);
  const sessionId = params.get("sessionId");
  const runId = params.get("runId");
  const state = $("trace-state");
  if (!sessionId || !runId) {
    state.replaceChildren(badge("fail", "Missing sessionId or runId in the address."));
    return;
  }
  try {
    render(await fetchTrace(sessionId, runId));
    state.replaceChildren(badge("ok", "Trace loaded"), " ", el("code", { text: runId }));
    document.title = `Trace ${runId} — SuperBiz Agent`;
  } catch (error) {
    state.replaceChildren(badge("fail", `Trace unavailable: ${error.message}`));
  }
}

main();

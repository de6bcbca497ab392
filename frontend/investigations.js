// Investigations page: the caller's recent runs across sessions (GET /api/investigations), each
// linked to its trace. Every recorded string is inserted as text.

import { fetchInvestigations, traceHref } from "./api.js";
import { badge, el, statusBadge } from "./report.js";

const PAGE_SIZE = 50;
const text = (value) => (value === null || value === undefined || value === "" ? "—" : String(value));

function outcomeBadge(run) {
  if (run.outcome === "FALLBACK") return badge("warn", "FALLBACK");
  if (run.outcome === "FAILED") return badge("fail", "FAILED");
  return run.outcome ? badge("ok", run.outcome) : statusBadge(text(run.status));
}

function when(iso) {
  const moment = new Date(iso);
  return Number.isNaN(moment.getTime()) ? text(iso) : moment.toLocaleString();
}

function row(run) {
  const flow = run.agentFlow === "AI_OPS" ? "AIOps" : "Chat";
  return el(
    "tr",
    { "data-run-id": run.runId },
    el("td", {}, el("time", { datetime: run.createdAt, text: when(run.createdAt) })),
    el("td", { text: flow }),
    el("td", {}, el("a", { href: traceHref(run.sessionId, run.runId), text: text(run.query) })),
    el("td", {}, outcomeBadge(run)),
    el("td", { text: text(run.rootCause) }),
  );
}

async function main() {
  const state = document.getElementById("investigations-state");
  try {
    const runs = await fetchInvestigations(PAGE_SIZE);
    const list = Array.isArray(runs) ? runs : [];
    state.textContent = list.length ? `${list.length} most recent run(s).` : "No runs yet.";
    if (!list.length) return;
    const head = el("tr", {}, ["Time", "Flow", "Question or alert group", "Outcome", "Root cause"].map((name) => el("th", { scope: "col", text: name })));
    document.getElementById("investigations").append(el("table", { class: "investigations" }, el("thead", {}, head), el("tbody", {}, list.map(row))));
  } catch (error) {
    state.textContent = `Could not load the investigations: ${error.message ?? error}`;
  }
}

main();

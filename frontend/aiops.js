// AIOps page: start an alert scan (POST /api/ai_ops through api.streamAiops), watch its report
// stream in, then open its trace. On a protocol violation everything it streamed is removed.

import { ApiError, isAiopsGroup, isAiopsSummary, isReportPayload, streamAiops, traceHref } from "./api.js";
import { badge, el, reportPayloadView } from "./report.js";

const $ = (id) => document.getElementById(id);

function scanRequest() {
  const services = $("services").value.split(",").map((s) => s.trim()).filter(Boolean);
  const instruction = $("instruction").value.trim();
  const request = {};
  if (services.length) request.services = services;
  if (instruction) request.instruction = instruction;
  return request;
}

// One alert group: what fired, how its diagnosis ended, and the report when there is one.
function groupView({ group, outcome, report }) {
  const where = group.service ?? "unknown service";
  const heading = `${group.alertname} · ${where} · ${group.count} alert(s)${group.severity ? ` · ${group.severity}` : ""}`;
  const label = outcome === "SUCCESS" ? badge("ok", outcome) : outcome === "FALLBACK" ? badge("warn", outcome) : badge("fail", outcome);
  return el(
    "section",
    { class: "aiops-group" },
    el("h3", {}, el("span", { text: heading }), " ", label),
    report ? reportPayloadView(report) : el("p", { class: "muted", text: "No diagnosis for this alert group." }),
  );
}

function summaryView(summary) {
  return el("p", { class: "scan-summary" }, el("strong", { text: "Summary: " }), el("span", { text: summary.summary }));
}

function traceLink(ids) {
  return el("a", { class: "trace-link", href: traceHref(ids.sessionId, ids.runId) }, el("span", { "aria-hidden": "true", text: "↗ " }), "Open trace");
}

async function startScan(event) {
  event.preventDefault();
  const button = $("start-scan");
  const output = $("scan-output");
  const state = $("scan-state");
  const links = $("scan-links");
  button.disabled = true;
  output.replaceChildren();
  links.replaceChildren();
  state.replaceChildren(badge("busy", "Scanning…"));
  try {
    const result = await streamAiops(scanRequest(), (update) => {
      if (update.kind === "metadata") {
        state.replaceChildren(badge("busy", "Scanning…"), " run ", el("code", { text: update.ids.runId }));
      } else if (isAiopsGroup(update.data)) {
        output.append(groupView(update.data));
      } else if (isAiopsSummary(update.data)) {
        output.append(summaryView(update.data));
      } else if (isReportPayload(update.data)) {
        output.append(reportPayloadView(update.data));
      } else {
        output.append(el("p", { class: "stream-text", text: update.data }));
      }
    });
    if (result.error) {
      state.replaceChildren(badge("fail", "Scan failed"), ` ${result.error}`);
    } else {
      state.replaceChildren(badge("ok", "Scan complete"));
    }
    links.replaceChildren(traceLink(result));
  } catch (error) {
    output.replaceChildren();
    const prefix = error instanceof ApiError ? "Request failed:" : "Protocol error — the report was discarded:";
    state.replaceChildren(el("span", { class: "error", role: "alert" }, badge("fail", "Error"), ` ${prefix} ${error.message}`));
    if (error.ids) links.replaceChildren(traceLink(error.ids));
  } finally {
    button.disabled = false;
  }
}

$("scan-form").addEventListener("submit", startScan);

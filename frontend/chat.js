// Chat page: one conversation per session, each message streamed from POST /api/chat through
// api.streamChat; the answer is rendered only after the stream reached a valid done.

import { ApiError, fetchRuns, streamChat, traceHref } from "./api.js";
import { badge, contentView, el, feedbackForm } from "./report.js";

const SESSION_KEY = "superbiz.sessionId";
const $ = (id) => document.getElementById(id);

let sessionId = sessionStorage.getItem(SESSION_KEY);
let busy = false;
let historyRequest = 0; // only the latest history request may draw the list

function setSession(id) {
  sessionId = id;
  if (id) sessionStorage.setItem(SESSION_KEY, id);
  else sessionStorage.removeItem(SESSION_KEY);
  $("session-id").textContent = id ?? "new";
}

function traceLink(ids) {
  return el("a", { class: "trace-link", href: traceHref(ids.sessionId, ids.runId) }, el("span", { "aria-hidden": "true", text: "↗ " }), "Open trace");
}

function assistantMessage() {
  const progress = el("ol", { class: "progress", "aria-label": "Progress" });
  const state = el("p", { class: "message-state" }, badge("busy", "Working…"));
  const body = el("div", { class: "message-body" });
  const footer = el("div", { class: "message-footer" });
  const item = el("li", { class: "message assistant", "data-state": "streaming" }, el("p", { class: "role", text: "Agent" }), state, progress, body, footer);
  return { item, progress, state, body, footer };
}

function showResult(view, result) {
  const ids = { sessionId: result.sessionId, runId: result.runId };
  view.item.dataset.runId = result.runId;
  if (result.content) {
    view.body.append(contentView(result.content));
    const label = result.outcome === "FALLBACK" ? badge("warn", "Complete — fallback answer") : badge("ok", "Complete");
    view.state.replaceChildren(label);
    view.footer.append(traceLink(ids), feedbackForm(ids.sessionId, ids.runId));
  } else {
    view.body.append(el("p", { class: "error", role: "alert" }, badge("fail", "Failed"), ` ${result.failure.message} (${result.failure.code})`));
    view.state.replaceChildren(badge("fail", "Failed"));
    view.footer.append(traceLink(ids));
  }
  view.item.dataset.state = result.outcome.toLowerCase();
}

function showError(view, error) {
  const protocol = !(error instanceof ApiError);
  const prefix = protocol ? "Protocol error — the answer was discarded:" : "Request failed:";
  const message = error instanceof Error && error.message ? error.message : "Unexpected error.";
  view.body.replaceChildren(el("p", { class: "error", role: "alert" }, badge("fail", "Error"), ` ${prefix} ${message}`));
  view.state.replaceChildren(badge("fail", "Error"));
  view.item.dataset.state = "error";
  if (error.ids) view.footer.append(traceLink(error.ids));
}

async function ask(query) {
  $("messages").append(el("li", { class: "message user" }, el("p", { class: "role", text: "You" }), el("p", { class: "user-text", text: query })));
  const view = assistantMessage();
  $("messages").append(view.item);
  view.item.scrollIntoView({ block: "nearest" });
  try {
    const result = await streamChat({ sessionId, query }, (event) => {
      if (event.kind === "metadata") {
        if (!sessionId) setSession(event.ids.sessionId);
        view.item.dataset.runId = event.ids.runId;
      } else if (event.kind === "status") {
        view.progress.append(el("li", {}, el("span", { "aria-hidden": "true", text: "▸ " }), el("span", { text: event.message }), " ", el("code", { text: event.code })));
      }
    });
    showResult(view, result);
  } catch (error) {
    showError(view, error);
  }
}

function historyItem(run) {
  const preview = run.answerPreview ? el("span", { class: "muted", text: run.answerPreview }) : null;
  return el(
    "li",
    {},
    el("a", { href: traceHref(run.sessionId, run.runId) }, el("span", { text: run.query })),
    el("span", { class: "history-meta" }, `${run.status} · ${run.agentFlow} · ${run.stepCount} steps · ${run.toolCallCount} tools`),
    preview,
  );
}

async function loadHistory() {
  const mine = ++historyRequest;
  const list = $("history");
  const state = $("history-state");
  if (!sessionId) {
    list.replaceChildren();
    state.textContent = "No runs yet.";
    return;
  }
  try {
    const runs = await fetchRuns(sessionId);
    if (mine !== historyRequest) return;
    list.replaceChildren(...(Array.isArray(runs) ? runs : []).map(historyItem));
    state.textContent = list.children.length ? `${list.children.length} run(s)` : "No runs yet.";
  } catch (error) {
    if (mine !== historyRequest) return;
    state.textContent = `History unavailable: ${error.message}`;
  }
}

async function onSubmit(event) {
  event.preventDefault();
  const input = $("query");
  const query = input.value.trim();
  if (!query || busy) return;
  busy = true;
  $("send").disabled = true;
  input.value = "";
  try {
    await ask(query);
  } finally {
    busy = false;
    $("send").disabled = false;
    input.focus();
  }
  // The composer is free again as soon as the answer is drawn: a question typed while the history
  // list refreshes is sent, never dropped.
  loadHistory();
}

function newSession() {
  if (busy) return;
  setSession(null);
  $("messages").replaceChildren();
  loadHistory();
  $("query").focus();
}

$("composer").addEventListener("submit", onSubmit);
$("query").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
});
$("new-session").addEventListener("click", newSession);
setSession(sessionId);
loadHistory();

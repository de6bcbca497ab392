// The one module that talks to the server: HTTP calls, bearer-token auth, SSE frame parsing and the
// strict client-side state machines for the chat and AIOps streams. Pages never call fetch themselves.

import { hasExactKeys, isAiopsGroup, isAiopsSummary, isId, isObject, isReportPayload, isText, isTypedContent } from "./payload.js";

export { isAiopsGroup, isAiopsSummary, isReportPayload, isTypedContent };

const TOKEN_KEY = "superbiz.token";

/** A failure the page can show as-is: a stable code and a public message, never raw exception text. */
export class ApiError extends Error {
  constructor(code, message, status = 0) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** A stream that broke the protocol; the page must fail closed and render nothing it carried. */
export class ProtocolError extends Error {
  constructor(message) {
    super(message);
    this.code = "PROTOCOL_VIOLATION";
  }
}

let askToken = () => window.prompt("This server needs an access token. Paste your bearer token:");

/** Replace how the page asks the user for a bearer token (returns the token or null). */
export function setTokenPrompt(prompt) {
  askToken = prompt;
}

function authHeaders() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function errorFrom(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const code = body && typeof body.code === "string" ? body.code : `HTTP_${response.status}`;
  const message = body && typeof body.message === "string" ? body.message : "The server refused the request.";
  return new ApiError(code, message, response.status);
}

// A 401 with AUTH_REQUIRED asks for a token once, stores it for this tab and repeats the request.
async function send(path, init, retried = false) {
  const headers = { ...(init.headers || {}), ...authHeaders() };
  let response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch {
    throw new ApiError("NETWORK", "The server could not be reached.");
  }
  if (response.ok) return response;
  const error = await errorFrom(response);
  if (response.status === 401 && error.code === "AUTH_REQUIRED" && !retried) {
    const token = askToken();
    if (token && token.trim()) {
      sessionStorage.setItem(TOKEN_KEY, token.trim());
      return send(path, init, true);
    }
  }
  throw error;
}

async function getJson(path) {
  const response = await send(path, { method: "GET", headers: { Accept: "application/json" } });
  return dataOf(await response.json());
}

async function postJson(path, body) {
  const response = await send(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
  return dataOf(await response.json());
}

function dataOf(body) {
  if (!body || typeof body !== "object" || !("data" in body)) {
    throw new ApiError("BAD_RESPONSE", "The server sent an unexpected answer.");
  }
  return body.data;
}

/** GET the run summaries of one session; an unknown session has no runs. */
export async function fetchRuns(sessionId) {
  try {
    return await getJson(`/api/chat/session/${encodeURIComponent(sessionId)}/runs`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return [];
    throw error;
  }
}

/** GET the full trace of one run of one session. */
export function fetchTrace(sessionId, runId) {
  const query = new URLSearchParams({ runId });
  return getJson(`/api/diagnosis/${encodeURIComponent(sessionId)}/trace?${query}`);
}

/** POST feedback bound to exactly one run. */
export function postFeedback({ sessionId, runId, useful, comment }) {
  const body = { sessionId, runId, useful };
  if (comment) body.comment = comment;
  return postJson("/api/feedback", body);
}

/** GET the caller's recent runs across its sessions (the Investigations page), newest first. */
export function fetchInvestigations(limit = 50) {
  return getJson(`/api/investigations?${new URLSearchParams({ limit: String(limit) })}`);
}

/** Link to the trace page of one run (relative, so it works wherever the frontend is mounted). */
export function traceHref(sessionId, runId) {
  return `trace.html?${new URLSearchParams({ sessionId, runId })}`;
}

// ---------------------------------------------------------------- SSE frames

/**
 * Incremental parser of `text/event-stream` text: feed it chunks as they arrive, get back complete
 * frames `{event, data}`. Handles CRLF/CR line ends, frames split across chunks and comment lines.
 */
export class SseFrameParser {
  constructor() {
    this.buffer = "";
  }

  push(text) {
    this.buffer += text;
    // Normalise line ends first; a lone "\r" at the very end may be half of a CRLF, so keep it.
    let normal = this.buffer.replace(/\r\n/g, "\n");
    const pendingCr = normal.endsWith("\r");
    if (pendingCr) normal = normal.slice(0, -1);
    normal = normal.replace(/\r/g, "\n");
    const frames = [];
    let end = normal.indexOf("\n\n");
    while (end !== -1) {
      const frame = parseFrame(normal.slice(0, end));
      if (frame) frames.push(frame);
      normal = normal.slice(end + 2);
      end = normal.indexOf("\n\n");
    }
    this.buffer = pendingCr ? `${normal}\r` : normal;
    return frames;
  }

  /** True when bytes that are not comments or blank lines are left without a closing blank line. */
  hasPartialFrame() {
    return this.buffer.split(/\r\n|\r|\n/).some((line) => line !== "" && !line.startsWith(":"));
  }
}

function parseFrame(block) {
  let event = null;
  const data = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (event === null && data.length === 0) return null; // comments / id / retry only
  return { event: event ?? "message", data: data.join("\n") };
}

async function readFrames(response, onFrame) {
  const type = response.headers.get("Content-Type") || "";
  if (!type.startsWith("text/event-stream")) {
    throw new ProtocolError("The server did not answer with an event stream.");
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parser = new SseFrameParser();
  for (;;) {
    const { value, done } = await reader.read();
    const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
    for (const frame of parser.push(text)) {
      try {
        onFrame(frame);
      } catch (error) {
        reader.cancel().catch(() => {});
        throw error;
      }
    }
    if (done) break;
  }
  if (parser.hasPartialFrame()) throw new ProtocolError("The stream ended in the middle of an event.");
}

function parseJsonData(frame) {
  try {
    return JSON.parse(frame.data);
  } catch {
    throw new ProtocolError(`The "${frame.event}" event did not carry valid JSON.`);
  }
}

// ---------------------------------------------------------------- chat state machine

const OUTCOMES_AFTER = { content: ["SUCCESS", "FALLBACK"], failure: ["FAILED"] };

/**
 * Mirror of the server's chat stream state machine: metadata → status* → (content | failure) → done.
 * Every frame goes through `accept`; anything unknown, duplicated, out of order, conflicting or
 * malformed throws a ProtocolError. Nothing it holds may be rendered until `finish` succeeds.
 */
export class ChatProtocol {
  constructor(expectedSessionId = null) {
    this.expectedSessionId = expectedSessionId;
    this.phase = "start"; // start → open → released → done
    this.ids = null;
    this.released = null; // {kind: "content"|"failure", data}
    this.outcome = null;
  }

  accept(frame) {
    const name = frame.event;
    if (!["metadata", "status", "content", "failure", "done"].includes(name)) {
      throw new ProtocolError(`Unknown event "${name.slice(0, 40)}".`);
    }
    if (this.phase === "done") throw new ProtocolError(`A "${name}" event arrived after done.`);
    const data = parseJsonData(frame);
    return this[`_${name}`](data);
  }

  _metadata(data) {
    if (this.phase !== "start") throw new ProtocolError("Duplicate metadata event.");
    if (!hasExactKeys(data, ["session_id", "run_id"]) || !isId(data.session_id) || !isId(data.run_id)) {
      throw new ProtocolError("Malformed metadata event.");
    }
    if (this.expectedSessionId && data.session_id !== this.expectedSessionId) {
      throw new ProtocolError("The server answered for a different session.");
    }
    this.ids = { sessionId: data.session_id, runId: data.run_id };
    this.phase = "open";
    return { kind: "metadata", ids: this.ids };
  }

  _status(data) {
    this._requireOpen("status");
    if (!hasExactKeys(data, ["code", "message"]) || !isText(data.code) || !isText(data.message)) {
      throw new ProtocolError("Malformed status event.");
    }
    return { kind: "status", code: data.code, message: data.message };
  }

  _content(data) {
    this._requireOpen("content");
    if (!isTypedContent(data)) throw new ProtocolError("Malformed content event.");
    this.released = { kind: "content", data };
    this.phase = "released";
    return { kind: "content" };
  }

  _failure(data) {
    this._requireOpen("failure");
    if (!hasExactKeys(data, ["code", "message"]) || !isText(data.code) || !isText(data.message)) {
      throw new ProtocolError("Malformed failure event.");
    }
    this.released = { kind: "failure", data };
    this.phase = "released";
    return { kind: "failure" };
  }

  _done(data) {
    if (this.phase !== "released") throw new ProtocolError("Done arrived before any content or failure.");
    if (!hasExactKeys(data, ["outcome"]) || !OUTCOMES_AFTER[this.released.kind].includes(data.outcome)) {
      throw new ProtocolError(`Done outcome does not match the ${this.released.kind} that preceded it.`);
    }
    this.outcome = data.outcome;
    this.phase = "done";
    return { kind: "done", outcome: data.outcome };
  }

  _requireOpen(name) {
    if (this.phase === "start") throw new ProtocolError(`A "${name}" event arrived before metadata.`);
    if (this.phase === "released") {
      const first = this.released.kind;
      if (first === name) throw new ProtocolError(`Duplicate ${name} event.`);
      if (name === "status") throw new ProtocolError(`A status event arrived after the ${first}.`);
      throw new ProtocolError(`Conflicting events: both ${first} and ${name}.`);
    }
  }

  /** The validated result; throws unless the stream reached a valid done. */
  finish() {
    if (this.phase !== "done") throw new ProtocolError("The stream ended before the done event.");
    const { kind, data } = this.released;
    return {
      ...this.ids,
      outcome: this.outcome,
      content: kind === "content" ? data : null,
      failure: kind === "failure" ? data : null,
    };
  }
}

/**
 * The one chat consumer: POST /api/chat and read the event stream. `onEvent` sees metadata and
 * status as they arrive (progress only). Resolves with ChatProtocol.finish(); rejects with ApiError
 * or ProtocolError. `protocol` is exposed on the error so the page can still link the run.
 */
export async function streamChat({ sessionId, query }, onEvent = () => {}) {
  const protocol = new ChatProtocol(sessionId);
  const body = sessionId ? { sessionId, query } : { query };
  const response = await send("/api/chat", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  try {
    await readFrames(response, (frame) => onEvent(protocol.accept(frame)));
    return protocol.finish();
  } catch (error) {
    error.ids = protocol.ids;
    throw error;
  }
}

// ---------------------------------------------------------------- AIOps stream

/**
 * POST /api/ai_ops and follow its legacy stream: every frame is `event: message` carrying
 * {type, data}; metadata first and once, content any number of times, then done or error.
 * `onEvent` receives {kind: "metadata"|"content", ...}; resolves with {sessionId, runId, error}.
 */
export async function streamAiops(request, onEvent = () => {}) {
  const response = await send("/api/ai_ops", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify(request),
  });
  let ids = null;
  let terminal = null;
  try {
    await readFrames(response, (frame) => {
      if (frame.event !== "message") throw new ProtocolError(`Unknown event "${frame.event.slice(0, 40)}".`);
      if (terminal) throw new ProtocolError("An event arrived after the scan finished.");
      const message = parseJsonData(frame);
      if (!isObject(message) || !isText(message.type)) throw new ProtocolError("Malformed scan event.");
      if (message.type === "metadata") {
        if (ids) throw new ProtocolError("Duplicate metadata event.");
        const data = message.data;
        if (!hasExactKeys(data, ["sessionId", "runId"]) || !isId(data.sessionId) || !isId(data.runId)) {
          throw new ProtocolError("Malformed metadata event.");
        }
        ids = { sessionId: data.sessionId, runId: data.runId };
        onEvent({ kind: "metadata", ids });
        return;
      }
      if (!ids) throw new ProtocolError(`A "${message.type.slice(0, 40)}" event arrived before metadata.`);
      if (message.type === "content") {
        const data = message.data;
        if (!isText(data) && !isReportPayload(data) && !isAiopsGroup(data) && !isAiopsSummary(data)) {
          throw new ProtocolError("Malformed content event.");
        }
        onEvent({ kind: "content", data: message.data });
      } else if (message.type === "done") {
        terminal = { error: null };
      } else if (message.type === "error") {
        terminal = { error: isText(message.data) ? message.data : "The scan failed." };
      } else {
        throw new ProtocolError(`Unknown event type "${message.type.slice(0, 40)}".`);
      }
    });
    if (!terminal) throw new ProtocolError("The stream ended before the scan finished.");
    return { ...ids, error: terminal.error };
  } catch (error) {
    error.ids = ids;
    throw error;
  }
}

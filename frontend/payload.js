// The shapes of the typed payloads the server releases (README "The chat stream"). Pure
// predicates: a payload that fails them is never rendered.

export const isText = (value) => typeof value === "string";
export const isId = (value) => isText(value) && value.trim() !== "" && value.length <= 200;
export const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
export const hasExactKeys = (value, keys) =>
  isObject(value) && Object.keys(value).length === keys.length && keys.every((key) => key in value);
const isListOf = (value, check) => Array.isArray(value) && value.every(check);

function isDiagnosisReport(p) {
  const rootCause = p.root_cause;
  return (
    isText(p.summary) &&
    typeof p.healthy === "boolean" &&
    typeof p.degraded === "boolean" &&
    (rootCause === null ||
      (isObject(rootCause) && isText(rootCause.service) && isText(rootCause.category) &&
        isText(rootCause.statement) && typeof rootCause.confidence === "number")) &&
    isListOf(p.findings, (f) => isObject(f) && isText(f.statement) && isListOf(f.evidence_ids, isText)) &&
    isListOf(p.evidence, (e) => isObject(e) && ["id", "source", "tool", "title", "status"].every((k) => isText(e[k]))) &&
    isListOf(p.recommendations, (r) => isObject(r) && isText(r.action) && (r.runbook == null || isText(r.runbook))) &&
    isListOf(p.open_questions, isText) &&
    isListOf(p.ruled_out, (r) => isObject(r) && isText(r.service) && isText(r.reason))
  );
}

function isAnswer(p) {
  return (
    isText(p.text) &&
    typeof p.degraded === "boolean" &&
    isListOf(p.sources, (s) => isObject(s) && isText(s.id) && isText(s.title))
  );
}

const isCount = (value) => Number.isInteger(value) && value >= 0;
const TABLE_KINDS = ["log_lines", "line_counts", "series", "alerts", "targets", "rules", "rows"];

function isTable(t) {
  return (
    isObject(t) && TABLE_KINDS.includes(t.kind) && isText(t.title) && isText(t.query) &&
    Array.isArray(t.evidence_ids) && t.evidence_ids.every(isText) &&
    Array.isArray(t.columns) && t.columns.every(isText) &&
    Array.isArray(t.rows) && t.rows.every((row) => Array.isArray(row) && row.length === t.columns.length && row.every(isText)) &&
    isCount(t.total) && typeof t.truncated === "boolean"
  );
}

/** True for a lookup payload `{summary, nothing_matched, tables, evidence, degraded}`. */
export function isLookupResult(p) {
  return (
    isObject(p) && isText(p.summary) && typeof p.nothing_matched === "boolean" && typeof p.degraded === "boolean" &&
    Array.isArray(p.tables) && p.tables.every(isTable) &&
    Array.isArray(p.evidence) && p.evidence.every((e) => isObject(e) && ["id", "source", "tool", "title", "status"].every((k) => isText(e[k])))
  );
}

/** True when `content` is `{content_type, payload}` of a type this page knows how to render. */
export function isTypedContent(content) {
  if (!hasExactKeys(content, ["content_type", "payload"]) || !isObject(content.payload)) return false;
  if (content.content_type === "diagnosis_report") return isDiagnosisReport(content.payload);
  if (content.content_type === "answer") return isAnswer(content.payload);
  if (content.content_type === "lookup_result") return isLookupResult(content.payload);
  return false;
}

/** True when a bare payload (as the AIOps stream sends it) is a diagnosis report. */
export function isReportPayload(payload) {
  return isObject(payload) && isDiagnosisReport(payload);
}

/** True for an AIOps alert-group message `{group, outcome, report}` (report null: no diagnosis). */
export function isAiopsGroup(value) {
  const group = value?.group;
  return (
    hasExactKeys(value, ["group", "outcome", "report"]) &&
    isObject(group) && isText(group.alertname) && (group.service == null || isText(group.service)) &&
    Number.isInteger(group.count) && (group.severity == null || isText(group.severity)) &&
    isText(value.outcome) && (value.report === null || isReportPayload(value.report))
  );
}

/** True for the AIOps scan summary `{summary, groups, diagnosed, alert_source}`. */
export function isAiopsSummary(value) {
  return (
    hasExactKeys(value, ["summary", "groups", "diagnosed", "alert_source"]) && isText(value.summary) &&
    Number.isInteger(value.groups) && Number.isInteger(value.diagnosed) && isText(value.alert_source)
  );
}

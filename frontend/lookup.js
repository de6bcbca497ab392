// The lookup answer (content_type "lookup_result", validated by payload.isLookupResult): tables of
// the rows a data question's query returned, each with the query that produced it and its counts.
// Every cell goes in as text.

import { badge, el, evidenceTable } from "./report.js";

/** One table: its caption (title, counts), the query that produced it, and the rows. */
export function lookupTable(table) {
  const shown = table.rows.length;
  const counts = shown === table.total ? `${table.total} rows` : `${shown} of ${table.total} rows shown`;
  const caption = el("caption", {}, el("strong", { text: table.title }), ` — ${counts}`, table.truncated ? " (the source's limit was reached; more may exist)" : "");
  const head = el("tr", {}, table.columns.map((name) => el("th", { scope: "col", text: name })));
  const body = table.rows.length
    ? table.rows.map((row) => el("tr", {}, row.map((value) => el("td", { text: value }))))
    : [el("tr", {}, el("td", { colspan: Math.max(1, table.columns.length), class: "muted", text: "Nothing matched." }))];
  return el(
    "section",
    { class: "report-section lookup-table", "data-kind": table.kind },
    el("p", { class: "lookup-query" }, el("span", { class: "sr-label", text: "Query: " }), el("code", { text: table.query })),
    el("div", { class: "table-wrap" }, el("table", {}, caption, el("thead", {}, head), el("tbody", {}, body))),
  );
}

/** The whole lookup answer. */
export function lookupView(payload) {
  const header = el(
    "p",
    { class: "report-badges" },
    payload.nothing_matched ? badge("info", "Nothing matched") : badge("ok", "Data"),
    payload.degraded ? badge("warn", "Degraded (fallback)") : null,
  );
  return el(
    "article",
    { class: "report", "data-content-type": "lookup_result" },
    header,
    el("p", { class: "summary", text: payload.summary }),
    ...payload.tables.map(lookupTable),
    payload.evidence.length ? el("details", { class: "evidence" }, el("summary", { text: `Evidence (${payload.evidence.length})` }), evidenceTable(payload.evidence)) : null,
  );
}

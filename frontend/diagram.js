// Draws the orchestration graph (the server's graph/build.py) as SVG and marks the path a run took:
// taken edges are solid and thick with a visit count, untaken ones thin and dashed, visited nodes
// carry their visit order, the final node a double border and the word "final" — no colour needed.
// tests/unit/graph/test_diagram.py holds NODES, EDGES and BUDGET_EXITS to build_graph()'s nodes and
// edges: a node or edge added to the graph without being drawn here fails it.

const SVG = "http://www.w3.org/2000/svg";
const W = 150;
const H = 44; // room for the name and, under it, the visit order

// Node centres; the main line runs top to bottom, lookup (a data question's rows), repair and fallback
// sit to the right.
const NODES = {
  router: [250, 30],
  planner: [250, 105],
  executors: [250, 180],
  diagnose: [250, 255],
  lookup: [470, 180],
  evidence_guard: [250, 330],
  semantic_guard: [250, 405],
  composer: [250, 480],
  repair: [520, 292],
  fallback: [520, 405],
};

// [from, to, label, waypoints]: the edges of graph/build.py. The planner joins the three executor
// lanes and plans the next round until it has enough evidence; repair re-drafts (back to the
// guard) or asks the planner for more evidence. Waypoints route the loops around the main line
// without crossings.
const EDGES = [
  ["router", "planner", ""],
  ["planner", "executors", ""],
  ["executors", "planner", "join", [[110, 180], [110, 112]]],
  ["planner", "diagnose", "enough", [[40, 98], [40, 255]]],
  ["planner", "lookup", "lookup", [[470, 124]]],
  ["lookup", "evidence_guard", "", [[345, 180], [345, 290], [300, 290]]],
  ["diagnose", "evidence_guard", ""],
  ["evidence_guard", "semantic_guard", "ok"],
  ["evidence_guard", "repair", "violations", [[430, 318], [430, 292]]],
  ["repair", "evidence_guard", "re-draft", [[500, 340]]],
  ["repair", "planner", "more evidence", [[580, 274], [580, 105]]],
  ["evidence_guard", "fallback", "exhausted", [[300, 368], [500, 368]]],
  ["semantic_guard", "composer", "ok"],
  ["semantic_guard", "fallback", "rejected"],
];

// The budget exits: edges of the graph too, drawn only when a run takes one, so that the diagram
// of an ordinary run stays readable.
const BUDGET_EXITS = [
  ["router", "fallback"],
  ["planner", "fallback"],
  ["diagnose", "fallback"],
  ["repair", "fallback"],
];

// Labels sit on top of lines and arrowheads; a halo in the background colour keeps them legible.
const HALO = { stroke: "#ffffff", "stroke-width": 4, "stroke-linejoin": "round", "paint-order": "stroke" };

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

/** Map a trace node name to a diagram node (the three executors are drawn as one box). */
export function diagramNode(name) {
  const id = String(name);
  if (id.startsWith("executor")) return "executors";
  return id in NODES ? id : null;
}

// Where an edge towards (tx, ty) leaves the box around (cx, cy): straight out of a side when the
// target is level with the box, otherwise along the line between the centres.
function boxExit([cx, cy], [tx, ty]) {
  if (Math.abs(tx - cx) <= W / 2 && ty !== cy) return [tx, cy + Math.sign(ty - cy) * (H / 2)];
  if (Math.abs(ty - cy) <= H / 2 && tx !== cx) return [cx + Math.sign(tx - cx) * (W / 2), ty];
  const dx = tx - cx;
  const dy = ty - cy;
  const scale = Math.min(W / 2 / Math.abs(dx), H / 2 / Math.abs(dy));
  return [cx + dx * scale, cy + dy * scale];
}

function edgePoints(from, to, waypoints = []) {
  const a = NODES[from];
  const b = NODES[to];
  const first = waypoints[0] ?? b;
  const last = waypoints[waypoints.length - 1] ?? a;
  return [boxExit(a, first), ...waypoints, boxExit(b, last)];
}

function countTransitions(trace) {
  const counts = new Map();
  for (const step of trace?.transitions ?? []) {
    const from = diagramNode(step?.from);
    const to = diagramNode(step?.to);
    if (!from || !to || from === to) continue;
    const key = `${from}>${to}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function drawEdge(group, key, points, label, count) {
  const taken = count > 0;
  group.append(
    svg("polyline", {
      points: points.map((p) => p.join(",")).join(" "),
      fill: "none",
      stroke: taken ? "#0d2238" : "#8c959f",
      "stroke-width": taken ? 3 : 1.2,
      "stroke-dasharray": taken ? "none" : "5 4",
      "marker-end": taken ? "url(#arrow-taken)" : "url(#arrow)",
      "data-taken": taken ? "true" : "false",
      "data-edge": key,
      class: "edge",
    }),
  );
  const text = [label, count > 1 ? `×${count}` : ""].filter(Boolean).join(" ");
  if (!text) return;
  // Label the longest segment: above it when horizontal, beside it otherwise.
  let best = 0;
  for (let i = 1; i < points.length - 1; i++) {
    if (segmentLength(points, i) > segmentLength(points, best)) best = i;
  }
  const [[x1, y1], [x2, y2]] = [points[best], points[best + 1]];
  const horizontal = Math.abs(y2 - y1) < 1;
  const attrs = horizontal
    ? { x: (x1 + x2) / 2, y: y1 - 5, "text-anchor": "middle" }
    : { x: (x1 + x2) / 2 + 6, y: (y1 + y2) / 2 + 4, "text-anchor": "start" };
  group.append(svg("text", { ...attrs, ...HALO, "font-size": 12, fill: "#1b1f24", "font-weight": taken ? 700 : 400 }, text));
}

function segmentLength(points, i) {
  const [[x1, y1], [x2, y2]] = [points[i], points[i + 1]];
  return Math.hypot(x2 - x1, y2 - y1);
}

function drawNode(group, id, order, isFinal) {
  const [cx, cy] = NODES[id];
  const visited = order.length > 0;
  const node = svg("g", { class: "node", "data-node": id, "data-visited": visited ? "true" : "false", "data-final": isFinal ? "true" : "false" });
  node.append(svg("rect", { x: cx - W / 2, y: cy - H / 2, width: W, height: H, rx: 8, fill: visited ? "#dbe9f8" : "#ffffff", stroke: visited ? "#0d2238" : "#8c959f", "stroke-width": visited ? 2.5 : 1, "stroke-dasharray": visited ? "none" : "4 3" }));
  if (isFinal) node.append(svg("rect", { x: cx - W / 2 - 4, y: cy - H / 2 - 4, width: W + 8, height: H + 8, rx: 11, fill: "none", stroke: "#0d2238", "stroke-width": 2 }));
  // The visit order sits inside the box: above it, it would hide the arrowheads coming in.
  node.append(svg("text", { x: cx, y: visited ? cy - 1 : cy + 5, "text-anchor": "middle", "font-size": 14, "font-weight": visited ? 700 : 400 }, `${visited ? "✓ " : ""}${id}`));
  if (visited) {
    node.append(svg("text", { x: cx, y: cy + 14, "text-anchor": "middle", "font-size": 11, fill: "#1b1f24", class: "visit-order" }, `step ${order.join(", ")}`));
  }
  if (isFinal) node.append(svg("text", { x: cx + W / 2 + 8, y: cy + 4, "font-size": 12, "font-weight": 700 }, "◀ final"));
  group.append(node);
}

/** The SVG diagram for an orchestration trace (may be null: the graph is drawn with nothing taken). */
export function orchestrationDiagram(trace) {
  const path = (trace?.path ?? []).map(diagramNode);
  const finalNode = diagramNode(trace?.final_node ?? "") ?? path.filter(Boolean).at(-1) ?? null;
  const counts = countTransitions(trace);
  const root = svg("svg", { viewBox: "0 0 640 525", class: "diagram", role: "img", "aria-labelledby": "diagram-title" });
  root.append(svg("title", { id: "diagram-title" }, `Orchestration graph; path taken: ${path.filter(Boolean).join(" → ") || "none recorded"}`));
  const defs = svg("defs");
  for (const [id, colour] of [["arrow", "#8c959f"], ["arrow-taken", "#0d2238"]]) {
    const marker = svg("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 10, markerHeight: 10, markerUnits: "userSpaceOnUse", orient: "auto" });
    marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: colour }));
    defs.append(marker);
  }
  root.append(defs);
  const edges = svg("g", { class: "edges", transform: "translate(0 14)" });
  const known = new Set();
  for (const [from, to, label, waypoints] of EDGES) {
    const key = `${from}>${to}`;
    known.add(key);
    drawEdge(edges, key, edgePoints(from, to, waypoints), label, counts.get(key) ?? 0);
  }
  for (const [from, to] of BUDGET_EXITS) {
    const key = `${from}>${to}`;
    known.add(key);
    if (counts.has(key)) drawEdge(edges, key, edgePoints(from, to), "", counts.get(key));
  }
  // A transition outside the designed graph (e.g. a node failing straight to fallback) is still drawn.
  for (const [key, count] of counts) {
    if (known.has(key)) continue;
    const [from, to] = key.split(">");
    drawEdge(edges, key, edgePoints(from, to), "", count);
  }
  root.append(edges);
  const nodes = svg("g", { class: "nodes", transform: "translate(0 14)" });
  for (const id of Object.keys(NODES)) {
    const order = path.flatMap((name, index) => (name === id ? [index + 1] : []));
    drawNode(nodes, id, order, id === finalNode);
  }
  root.append(nodes);
  if (trace?.degraded) {
    root.append(svg("text", { x: 620, y: 24, "text-anchor": "end", "font-size": 14, "font-weight": 700, fill: "#8a5a00", class: "degraded-label" }, "⚠ degraded"));
  }
  return root;
}

/** The workflow diagram's layout, drawn top to bottom in ranks from the start step (a small Sugiyama layout, no
 * library): transitions that lead back (a reject that returns to an earlier step) are turned around for ranking;
 * each step's rank is its longest path from a source; a transition that spans several ranks gets a waypoint in
 * each rank it crosses, so it is routed around the steps between; steps and waypoints are ordered in their rank by
 * the barycenter of their neighbours (sweeps down and up, the order with the fewest crossings kept), then placed
 * under their neighbours as far as their rank's spacing lets them. Pure and cheap: 30 steps take well under a
 * millisecond, and the result is memoised on the graph (selecting or editing a step does not lay out again). */

export interface LayoutStep { id: string; type: string }
export interface LayoutTransition { id: string; from: string; to: string }

export interface NodeBox { id: string; x: number; y: number; w: number; h: number; rank: number }

export interface EdgeRoute {
  id: string;
  /** SVG path data from the source to the target. */
  d: string;
  /** Where the trigger's label goes (its center). */
  label: { x: number; y: number };
  /** The transition leads back up (to a step of an earlier rank, or to itself). */
  back: boolean;
}

export interface Layout {
  nodes: Map<string, NodeBox>;
  /** Step ids in reading order: by rank, then left to right. */
  order: string[];
  edges: EdgeRoute[];
  width: number;
  height: number;
}

export const NODE_W = 176;
export const NODE_H = 70;
const DUMMY_W = 18;
const GAP_X = 36;
/** Between a waypoint and its neighbour: edges may run closer to each other than steps. */
const GAP_WAYPOINT = 14;
const GAP_Y = 70;
const PAD = 24;
const LOOP = 26;
const LOOSE_PER_ROW = 3;

interface Vertex { id: string; dummy: boolean; rank: number; pos: number; x: number; w: number }
interface Chain { t: LayoutTransition; vertices: string[]; reversed: boolean }

export function layoutGraph(steps: LayoutStep[], transitions: LayoutTransition[]): Layout {
  const ids = new Set(steps.map((s) => s.id));
  const edges = transitions.filter((t) => ids.has(t.from) && ids.has(t.to));
  const out = new Map<string, LayoutTransition[]>(steps.map((s) => [s.id, []]));
  for (const t of edges) if (t.from !== t.to) out.get(t.from)!.push(t);

  // Start steps first, then the given order: the depth-first search finds back edges from there.
  const roots = [...steps.filter((s) => s.type === 'start'), ...steps.filter((s) => s.type !== 'start')];
  const back = new Set<string>();
  const state = new Map<string, 1 | 2>();
  for (const root of roots) {
    if (state.has(root.id)) continue;
    const stack: { id: string; next: number }[] = [{ id: root.id, next: 0 }];
    state.set(root.id, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const list = out.get(top.id)!;
      if (top.next >= list.length) {
        state.set(top.id, 2);
        stack.pop();
        continue;
      }
      const t = list[top.next++];
      const seen = state.get(t.to);
      if (seen === 1) back.add(t.id);
      else if (seen === undefined) {
        state.set(t.to, 1);
        stack.push({ id: t.to, next: 0 });
      }
    }
  }

  // Longest path ranks over the graph with back edges turned around (Kahn's order).
  const dag = edges.filter((t) => t.from !== t.to).map((t) => (back.has(t.id) ? { from: t.to, to: t.from } : { from: t.from, to: t.to }));
  const rank = new Map<string, number>(steps.map((s) => [s.id, 0]));
  const indegree = new Map<string, number>(steps.map((s) => [s.id, 0]));
  const succ = new Map<string, string[]>(steps.map((s) => [s.id, []]));
  for (const e of dag) {
    indegree.set(e.to, indegree.get(e.to)! + 1);
    succ.get(e.from)!.push(e.to);
  }
  const ready = roots.filter((s) => indegree.get(s.id) === 0).map((s) => s.id);
  while (ready.length) {
    const id = ready.shift()!;
    for (const next of succ.get(id)!) {
      rank.set(next, Math.max(rank.get(next)!, rank.get(id)! + 1));
      indegree.set(next, indegree.get(next)! - 1);
      if (indegree.get(next) === 0) ready.push(next);
    }
  }
  // Steps not connected to anything yet (a workflow being built) wait under the graph, a few to a row, instead of
  // lining up in one endless first rank. A lone start step stays on top.
  const linked = new Set(edges.flatMap((t) => [t.from, t.to]));
  const loose = roots.filter((s) => !linked.has(s.id) && !(s.type === 'start' && linked.size === 0 && s === roots[0]));
  if (loose.length) {
    const below = linked.size ? Math.max(...[...linked].map((id) => rank.get(id)!)) + 1 : roots[0] && !loose.includes(roots[0]) ? 1 : 0;
    loose.forEach((s, i) => rank.set(s.id, below + Math.floor(i / LOOSE_PER_ROW)));
  }

  // Vertices: the steps, and a waypoint in every rank a transition crosses.
  const vertices = new Map<string, Vertex>();
  for (const s of steps) vertices.set(s.id, { id: s.id, dummy: false, rank: rank.get(s.id)!, pos: 0, x: 0, w: NODE_W });
  const chains: Chain[] = [];
  for (const t of edges) {
    if (t.from === t.to) {
      chains.push({ t, vertices: [t.from], reversed: true });
      continue;
    }
    const reversed = back.has(t.id);
    const [a, b] = reversed ? [t.to, t.from] : [t.from, t.to];
    const list = [a];
    for (let r = rank.get(a)! + 1; r < rank.get(b)!; r += 1) {
      const id = `${t.id}~${r}`;
      vertices.set(id, { id, dummy: true, rank: r, pos: 0, x: 0, w: DUMMY_W });
      list.push(id);
    }
    list.push(b);
    chains.push({ t, vertices: list, reversed });
  }
  const up = new Map<string, string[]>();
  const down = new Map<string, string[]>();
  for (const id of vertices.keys()) {
    up.set(id, []);
    down.set(id, []);
  }
  for (const c of chains) {
    for (let i = 0; i + 1 < c.vertices.length; i += 1) {
      down.get(c.vertices[i])!.push(c.vertices[i + 1]);
      up.get(c.vertices[i + 1])!.push(c.vertices[i]);
    }
  }

  // Initial order: breadth first from the roots, so branches start out side by side.
  const maxRank = Math.max(0, ...[...vertices.values()].map((v) => v.rank));
  const ranks: string[][] = Array.from({ length: maxRank + 1 }, () => []);
  const placed = new Set<string>();
  const queue = roots.map((s) => s.id).filter((id) => up.get(id)!.length === 0);
  for (const s of roots) if (!queue.includes(s.id)) queue.push(s.id);
  while (queue.length) {
    const id = queue.shift()!;
    if (placed.has(id)) continue;
    placed.add(id);
    ranks[vertices.get(id)!.rank].push(id);
    for (const next of down.get(id)!) if (!placed.has(next)) queue.push(next);
  }
  for (const v of vertices.values()) if (!placed.has(v.id)) ranks[v.rank].push(v.id);
  const setPositions = (order: string[][]): void => order.forEach((row) => row.forEach((id, i) => { vertices.get(id)!.pos = i; }));
  setPositions(ranks);

  let best = ranks.map((r) => [...r]);
  let bestCrossings = crossings(ranks, down, vertices);
  for (let sweep = 0; sweep < 6 && bestCrossings > 0; sweep += 1) {
    const downward = sweep % 2 === 0;
    const sequence = downward ? ranks.keys() : [...ranks.keys()].reverse();
    for (const r of sequence) {
      if ((downward && r === 0) || (!downward && r === maxRank)) continue;
      const neighbours = downward ? up : down;
      const row = ranks[r];
      const center = new Map(row.map((id) => {
        const ns = neighbours.get(id)!;
        return [id, ns.length ? ns.reduce((sum, n) => sum + vertices.get(n)!.pos, 0) / ns.length : vertices.get(id)!.pos];
      }));
      row.sort((a, b) => center.get(a)! - center.get(b)! || vertices.get(a)!.pos - vertices.get(b)!.pos);
      row.forEach((id, i) => { vertices.get(id)!.pos = i; });
    }
    const count = crossings(ranks, down, vertices);
    if (count < bestCrossings) {
      bestCrossings = count;
      best = ranks.map((row) => [...row]);
    }
  }
  setPositions(best);

  // x: each rank packed, then vertices pulled under (or over) their neighbours, keeping the order and the gaps.
  for (const row of best) {
    let x = 0;
    row.forEach((id, i) => {
      const v = vertices.get(id)!;
      if (i > 0) x += gap(vertices.get(row[i - 1])!, v);
      v.x = x + v.w / 2;
      x += v.w;
    });
  }
  for (let pass = 0; pass < 4; pass += 1) {
    const downward = pass % 2 === 0;
    const sequence = downward ? [...best.keys()] : [...best.keys()].reverse();
    for (const r of sequence) {
      const row = best[r];
      const neighbours = downward ? up : down;
      // A step goes under its neighbouring steps (waypoints only when it has no step neighbour), so a chain of
      // steps stays straight; a waypoint follows its edge.
      const want = row.map((id) => {
        const all = neighbours.get(id)!;
        const steps = vertices.get(id)!.dummy ? all : all.filter((n) => !vertices.get(n)!.dummy);
        const ns = steps.length ? steps : all;
        return ns.length ? ns.reduce((sum, n) => sum + vertices.get(n)!.x, 0) / ns.length : vertices.get(id)!.x;
      });
      packRow(row.map((id) => vertices.get(id)!), want);
    }
  }
  const minX = Math.min(...[...vertices.values()].map((v) => v.x - v.w / 2));
  for (const v of vertices.values()) v.x += PAD - minX;
  const hasLoop = chains.some((c) => c.t.from === c.t.to);
  const width = Math.max(NODE_W + 2 * PAD, ...[...vertices.values()].map((v) => v.x + v.w / 2 + PAD + (hasLoop ? LOOP + 8 : 0)));
  const yOf = (r: number): number => PAD + r * (NODE_H + GAP_Y);
  const height = yOf(maxRank) + NODE_H + PAD;

  const nodes = new Map<string, NodeBox>();
  for (const s of steps) {
    const v = vertices.get(s.id)!;
    nodes.set(s.id, { id: s.id, x: v.x - NODE_W / 2, y: yOf(v.rank), w: NODE_W, h: NODE_H, rank: v.rank });
  }
  const order = best.flat().filter((id) => !vertices.get(id)!.dummy);

  // Ports: the ends of a node's edges spread along its top and bottom sides, ordered by where the other end is.
  const ports = new Map<string, number>();
  const sides = new Map<string, { key: string; other: number }[]>();
  const addPort = (node: string, side: 'top' | 'bottom', key: string, other: number): void => {
    const list = sides.get(`${node}:${side}`) ?? [];
    list.push({ key, other });
    sides.set(`${node}:${side}`, list);
  };
  for (const c of chains) {
    if (c.vertices.length < 2) continue;
    const first = vertices.get(c.vertices[1])!;
    const last = vertices.get(c.vertices[c.vertices.length - 2])!;
    addPort(c.vertices[0], 'bottom', `${c.t.id}:a`, first.x);
    addPort(c.vertices[c.vertices.length - 1], 'top', `${c.t.id}:b`, last.x);
  }
  // Labels of edges that leave one side together sit at alternating heights, so neighbours do not cover each other.
  const labelAt = new Map<string, number>();
  for (const [key, list] of sides) {
    const node = vertices.get(key.slice(0, key.lastIndexOf(':')))!;
    list.sort((a, b) => a.other - b.other);
    const span = Math.min(node.w - 40, (list.length - 1) * 30);
    list.forEach((p, i) => {
      ports.set(p.key, node.x - span / 2 + (list.length > 1 ? (span * i) / (list.length - 1) : 0));
      labelAt.set(p.key, i % 2 === 0 ? 0.3 : 0.66);
    });
  }

  const routes: EdgeRoute[] = [];
  for (const c of chains) {
    if (c.vertices.length === 1) {
      const n = nodes.get(c.t.from)!;
      const x = n.x + n.w;
      const y1 = n.y + n.h * 0.3;
      const y2 = n.y + n.h * 0.7;
      routes.push({
        id: c.t.id, back: true,
        d: `M${x},${y1} C${x + LOOP * 1.6},${y1 - 6} ${x + LOOP * 1.6},${y2 + 6} ${x + 2},${y2}`,
        label: { x: x + LOOP + 4, y: n.y + n.h / 2 },
      });
      continue;
    }
    const points = c.vertices.map((id, i) => {
      const v = vertices.get(id)!;
      const top = yOf(v.rank);
      if (i === 0) return { x: ports.get(`${c.t.id}:a`)!, y: top + NODE_H };
      if (i === c.vertices.length - 1) return { x: ports.get(`${c.t.id}:b`)!, y: top };
      return { x: v.x, y: top + NODE_H / 2 };
    });
    // Waypoints are passed straight through their rank (enter at its top, leave at its bottom).
    const path: { x: number; y: number }[] = [];
    points.forEach((p, i) => {
      if (i === 0 || i === points.length - 1) path.push(p);
      else path.push({ x: p.x, y: p.y - NODE_H / 2 }, { x: p.x, y: p.y + NODE_H / 2 });
    });
    if (c.reversed) path.reverse();
    let d = `M${path[0].x},${path[0].y}`;
    for (let i = 1; i < path.length; i += 1) {
      const a = path[i - 1];
      const b = path[i];
      if (a.x === b.x && Math.abs(b.y - a.y) === NODE_H) d += ` L${b.x},${b.y}`;
      else {
        const bend = (b.y - a.y) / 2;
        d += ` C${a.x},${a.y + bend} ${b.x},${b.y - bend} ${b.x},${b.y}`;
      }
    }
    // The label sits on the first stretch from the source (for a back edge, which leaves its source's top, its middle).
    const at = c.reversed ? 0.5 : labelAt.get(`${c.t.id}:a`) ?? 0.38;
    routes.push({ id: c.t.id, back: c.reversed, d, label: bezierPoint(path[0], path[1], at) });
  }
  return { nodes, order, edges: routes, width, height };
}

/** A point of the S-shaped cubic between two points (vertical tangents at both ends). */
function bezierPoint(a: { x: number; y: number }, b: { x: number; y: number }, t: number): { x: number; y: number } {
  const bend = (b.y - a.y) / 2;
  const p1 = { x: a.x, y: a.y + bend };
  const p2 = { x: b.x, y: b.y - bend };
  const u = 1 - t;
  return {
    x: u * u * u * a.x + 3 * u * u * t * p1.x + 3 * u * t * t * p2.x + t * t * t * b.x,
    y: u * u * u * a.y + 3 * u * u * t * p1.y + 3 * u * t * t * p2.y + t * t * t * b.y,
  };
}

/** Places a rank's vertices as near as they can to the x they want, in their order and with their gaps. */
function packRow(row: Vertex[], want: number[]): void {
  const n = row.length;
  if (n === 0) return;
  // Left to right: each at least its gap after the previous; right to left: at most its gap before the next; the
  // average of both respects the order and moves every vertex toward where it wants to be.
  const left = new Array<number>(n);
  const right = new Array<number>(n);
  for (let i = 0; i < n; i += 1) {
    left[i] = i === 0 ? want[0] : Math.max(want[i], left[i - 1] + (row[i - 1].w + row[i].w) / 2 + gap(row[i - 1], row[i]));
  }
  for (let i = n - 1; i >= 0; i -= 1) {
    right[i] = i === n - 1 ? want[i] : Math.min(want[i], right[i + 1] - (row[i + 1].w + row[i].w) / 2 - gap(row[i], row[i + 1]));
  }
  for (let i = 0; i < n; i += 1) row[i].x = (left[i] + right[i]) / 2;
  for (let i = 1; i < n; i += 1) {
    const min = row[i - 1].x + (row[i - 1].w + row[i].w) / 2 + gap(row[i - 1], row[i]);
    if (row[i].x < min) row[i].x = min;
  }
}

function gap(a: Vertex, b: Vertex): number {
  return a.dummy || b.dummy ? GAP_WAYPOINT : GAP_X;
}

/** Crossings between consecutive ranks (pairs of edges whose ends are in opposite orders). */
function crossings(ranks: string[][], down: Map<string, string[]>, vertices: Map<string, Vertex>): number {
  let total = 0;
  for (let r = 0; r + 1 < ranks.length; r += 1) {
    const segments: [number, number][] = [];
    for (const id of ranks[r]) for (const next of down.get(id)!) segments.push([vertices.get(id)!.pos, vertices.get(next)!.pos]);
    for (let i = 0; i < segments.length; i += 1) {
      for (let j = i + 1; j < segments.length; j += 1) {
        const [a1, b1] = segments[i];
        const [a2, b2] = segments[j];
        if ((a1 - a2) * (b1 - b2) < 0) total += 1;
      }
    }
  }
  return total;
}

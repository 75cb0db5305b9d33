/** The one current table of docs/benchmarks.md: every row of the last `npm run bench`, read from the results files the
 * run wrote (test/bench/results*.json), with each row's target and whether the run met it. `npm run bench` writes it
 * at the end of a full run (no BENCH_SCENARIOS); `npx tsx test/bench/summary.ts` writes it again from the files. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt } from './shared.ts';

const here = dirname(fileURLToPath(import.meta.url));
const DOC = join(here, '..', '..', 'docs', 'benchmarks.md');
const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function read(name: string): Json | null {
  const path = join(here, name);
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null;
}

interface Line { row: string; service: string; reference: string; figure: string; target: string; met: boolean | null }

const yes = (met: boolean | null) => (met === null ? '' : met ? 'yes' : '**no**');
const atLeast = (value: number, target: number): Pick<Line, 'target' | 'met'> => ({ target: `≥ ${fmt(target, 2)}`, met: value >= target });

/** Ratio targets of the item rows (issue: reads >= 0.9 at 10 and 50 connections, search >= 0.9, single writes >= 0.85,
 * a batch of 100 >= 0.6); rows without one are measured only. */
const ITEM_TARGETS: Record<string, number> = {
  a: 0.9, b: 0.9, c: 0.9, d: 0.9, p: 0.9, q: 0.9, t: 0.9, u: 0.9, e: 0.9, e2: 0.9, e3: 0.9, f: 0.85, s: 0.85, v: 0.85, r: 0.6,
};

function itemLines(items: Json): Line[] {
  return items.scenarios.map((r: Json) => {
    const non2xx = r.service.non2xx + r.service.errors + r.service.timeouts;
    const target = ITEM_TARGETS[r.key];
    const ratio = target === undefined ? { target: '', met: null } : atLeast(r.ratio, target);
    return {
      row: `(${r.key}) ${r.name}${r.connections !== items.meta.connections && !String(r.name).includes('connections') ? `, ${r.connections} connections` : ''}`,
      service: `${fmt(r.service.requestsPerSec)} req/s, p99 ${fmt(r.service.p99Ms)} ms${non2xx ? `, **${fmt(non2xx)} not 2xx**` : ''}`,
      reference: `${fmt(r.raw.requestsPerSec)} req/s, p99 ${fmt(r.raw.p99Ms)} ms`,
      figure: fmt(r.ratio, 2),
      target: ratio.target,
      // A 503 below saturation fails the row whatever its ratio.
      met: ratio.met === null ? (non2xx ? false : null) : ratio.met && non2xx === 0,
    };
  });
}

function pageLoadLines(items: Json): Line[] {
  return (items.pageLoads ?? []).map((r: Json) => {
    const isSwitch = String(r.name).startsWith('collection switch');
    return {
      row: `(pl) Studio: ${r.name}, ${r.requests} request${r.requests > 1 ? 's' : ''}`,
      service: `p50 ${fmt(r.p50Ms, 1)} ms, p99 ${fmt(r.p99Ms, 1)} ms`, reference: '', figure: `${fmt(r.p50Ms, 1)} ms`,
      target: isSwitch ? 'p50 < 20 ms' : '', met: isSwitch ? r.p50Ms < 20 : null,
    };
  });
}

const ASSET_TARGETS: Record<string, number> = { g: 0.9, h: 0.9, i: 0.95, j: 0.9 };

function assetLines(assets: Json): Line[] {
  return assets.scenarios.map((r: Json) => {
    const mb = r.unit === 'MB/s';
    const side = (s: Json) => (mb ? `${fmt(s.mbPerSec, 1)} MB/s` : `${fmt(s.requestsPerSec)} req/s`) + `, p99 ${fmt(s.p99Ms)} ms`;
    const non2xx = r.service.non2xx + r.service.errors;
    const t = atLeast(r.ratio, ASSET_TARGETS[r.key] ?? 0);
    return {
      row: `(${r.key}) ${r.name}`, service: side(r.service) + (non2xx ? `, **${non2xx} failed**` : ''), reference: side(r.raw),
      figure: fmt(r.ratio, 2), target: t.target, met: t.met && non2xx === 0,
    };
  });
}

function versionLines(v: Json): Line[] {
  const out: Line[] = [];
  const l = v.results.l;
  if (l) out.push({ row: '(l) preview read of a draft vs the plain read', service: `${fmt(l.preview.requestsPerSec)} req/s`, reference: `${fmt(l.plain.requestsPerSec)} req/s`, figure: fmt(l.ratio, 2), ...atLeast(l.ratio, 0.8) });
  const m = v.results.m;
  if (m) out.push({ row: '(m) promotes of drafts, 10 workers', service: `${fmt(m.requestsPerSec)}/s, p99 ${fmt(m.p99Ms)} ms`, reference: '', figure: `${fmt(m.requestsPerSec)}/s`, target: '', met: null });
  return out;
}

function notifyLines(n: Json): Line[] {
  return n.scenarios.map((r: Json) => ({
    row: `(${r.key}) ${r.name}`, service: `${fmt(r.workerPerSec)} msgs/s`, reference: `${fmt(r.directPerSec)} msgs/s`, figure: fmt(r.ratio, 2),
    ...(r.key === 'n' ? atLeast(r.ratio, 0.8) : { target: '', met: null }),
  }));
}

function realtimeLines(rt: Json): Line[] {
  const out: Line[] = [];
  const { w, x, y } = rt.results;
  if (w) out.push({ row: `(w) ${fmt(w.connections)} idle WebSocket subscribers`, service: `${fmt(w.ready)} subscribed in ${fmt(w.readyMs / 1000, 1)} s`, reference: '', figure: `${fmt(w.perConnKb, 1)} KiB each`, target: '', met: null });
  if (x) out.push({ row: `(x) one create to ${fmt(x.subscribers)} subscribers`, service: `p50 ${fmt(x.fromSend.p50, 1)} ms, p99 ${fmt(x.fromSend.p99, 1)} ms`, reference: '', figure: `${fmt(x.deliveries)} of ${fmt(x.expected)} delivered`, target: 'all delivered', met: x.missing === 0 });
  if (y) {
    const all = y.deliveries.rows === y.deliveries.expectedRows;
    out.push({
      row: `(y) ${y.rate} POST/s with ${fmt(y.subscribers)} subscribers vs none`, service: `${fmt(y.withSubscribers.okPerSec)} 2xx/s, p99 ${fmt(y.withSubscribers.p99Ms, 1)} ms`,
      reference: `${fmt(y.baseline.okPerSec)} 2xx/s, p99 ${fmt(y.baseline.p99Ms, 1)} ms`, figure: fmt(y.throughputRatio, 2),
      target: '≥ 0.90, every row delivered', met: y.throughputRatio >= 0.9 && all,
    });
  }
  return out;
}

function memoryLines(mem: Json, upload: Json): Line[] {
  const out: Line[] = [];
  const mode = (name: string) => mem?.results.find((r: Json) => r.mode === name);
  const embedded = mode('embedded, first start (new DATA_DIR)');
  const pg = mode('DATABASE_URL');
  const mb = (s: Json) => `${fmt(s.rss)} MB`;
  if (embedded) {
    out.push({ row: '(mem) embedded (PGlite), idle after start', service: mb(embedded.idleStart), reference: '', figure: mb(embedded.idleStart), target: '≤ 150 MB', met: embedded.idleStart.rss <= 150 });
    out.push({ row: `(mem) embedded, peak under ${embedded.requests} mixed requests`, service: mb(embedded.peak), reference: '', figure: mb(embedded.peak), target: '≤ 250 MB', met: embedded.peak.rss <= 250 });
  }
  if (pg) out.push({ row: '(mem) `DATABASE_URL` (Postgres), idle after start', service: mb(pg.idleStart), reference: '', figure: mb(pg.idleStart), target: '≤ 100 MB', met: pg.idleStart.rss <= 100 });
  for (const r of upload?.results ?? []) {
    out.push({ row: `${r.name} of ${fmt(upload.meta.sizeMb)} MB`, service: `peak ${fmt(r.peakMb)} MB, ${fmt(r.mbPerSec)} MB/s`, reference: '', figure: `+${fmt(r.aboveIdleMb)} MB`, target: '≤ +150 MB', met: r.aboveIdleMb <= 150 });
  }
  return out;
}

export function summaryTable(): string {
  const items = read('results.json');
  const assets = read('results-assets.json');
  const versions = read('results-versions.json');
  const notify = read('results-notify.json');
  const realtime = read('results-realtime.json');
  const memory = read('results-memory.json');
  const upload = read('results-upload-memory.json');
  const lines: Line[] = [
    ...(items ? [...itemLines(items), ...pageLoadLines(items)] : []),
    ...(assets ? assetLines(assets) : []),
    ...(versions ? versionLines(versions) : []),
    ...(notify ? notifyLines(notify) : []),
    ...(realtime ? realtimeLines(realtime) : []),
    ...memoryLines(memory, upload),
  ];
  const dates = [items, assets, versions, notify, realtime, memory, upload].filter(Boolean).map((j: Json) => String(j.meta.date));
  dates.sort();
  const machine = items?.meta ? `${items.meta.cpu} x ${items.meta.cores}, ${items.meta.memoryGb} GiB, Node ${items.meta.node}` : '';
  return [
    '| row | service | reference | ratio / figure | target | met |',
    '|---|---|---|---:|---|---|',
    ...lines.map((l) => `| ${l.row} | ${l.service} | ${l.reference} | ${l.figure} | ${l.target} | ${yes(l.met)} |`),
    '',
    `\`npm run bench\` at the default settings; its parts finished between ${dates[0]?.slice(0, 16).replace('T', ' ')} and ${dates.at(-1)?.slice(0, 16).replace('T', ' ')} UTC${machine ? ` on ${machine}` : ''}`
      + `${items?.meta ? `; 1-minute load average ${items.meta.loadAverageAtStart} before the item rows, ${items.meta.loadAverageAtEnd} after` : ''}.`
      + ' Reference: the hand-written servers and clients each section below describes. Details of each part: test/bench/results*.md.',
  ].join('\n');
}

/** Replaces the table between the markers of docs/benchmarks.md. */
export function writeSummary(): void {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/benchmarks.md lacks the ${START} ... ${END} markers`);
  writeFileSync(DOC, `${doc.slice(0, start + START.length)}\n${summaryTable()}\n${doc.slice(end)}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeSummary();
  console.log('[bench] wrote the current table into docs/benchmarks.md');
}

/** Memory of a process tree (npm -> sh -> node), two ways:
 * - `rss`: the sum of each process' RSS. A page mapped by several processes of the tree is counted once per
 *   process: npm is itself a `node`, so the Node binary's pages (~35 MB) are counted twice.
 * - `unique`: the physical pages the tree holds, each counted once (the page frame numbers of every resident page
 *   in /proc/<pid>/pagemap, deduplicated). This is what the tree costs the machine. Needs root (without it the
 *   kernel hides the frame numbers and `unique` is null).
 * PSS is not used: it divides shared pages among every process on the machine that maps them, so it would
 * fall whenever any other `node` runs beside the tree. */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

/** The pid and its descendants. */
export function processTree(pid: number): number[] {
  const out = [pid];
  try {
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) out.push(...processTree(Number(child)));
  } catch { /* gone */ }
  return out;
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export const treeRssMb = (pid: number) => processTree(pid).reduce((sum, p) => sum + rssMb(p), 0);

const PAGE = 4096;
const CHUNK = 1 << 16; // pagemap entries read at once

/** Adds the frame numbers of pid's resident pages to frames; false when the kernel hides them. */
function addFrames(pid: number, frames: Set<number>): boolean {
  let smaps: string[];
  let fd: number;
  try {
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n');
    fd = openSync(`/proc/${pid}/pagemap`, 'r');
  } catch {
    return true; // the process ended
  }
  const buf = Buffer.alloc(CHUNK * 8);
  let sawPresent = false;
  let sawFrame = false;
  try {
    let start = 0;
    let end = 0;
    for (const line of smaps) {
      const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
      if (range) { start = parseInt(range[1]!, 16); end = parseInt(range[2]!, 16); continue; }
      const rss = /^Rss:\s+(\d+)/.exec(line);
      if (!rss || Number(rss[1]) === 0) continue; // only mappings with resident pages (skips the WASM reservations)
      const pages = (end - start) / PAGE;
      for (let off = 0; off < pages; off += CHUNK) {
        const n = Math.min(CHUNK, pages - off);
        readSync(fd, buf, 0, n * 8, (start / PAGE + off) * 8);
        for (let i = 0; i < n; i++) {
          const hi = buf.readUInt32LE(i * 8 + 4);
          if (!(hi & 0x80000000)) continue; // bit 63: present
          sawPresent = true;
          const pfn = (hi & 0x7fffff) * 2 ** 32 + buf.readUInt32LE(i * 8); // bits 0-54
          if (pfn) { sawFrame = true; frames.add(pfn); }
        }
      }
    }
  } catch {
    return true; // the process ended while being read
  } finally {
    closeSync(fd);
  }
  return !sawPresent || sawFrame;
}

/** The physical memory of the tree, each page once (MB), or null without access to frame numbers. */
export function treeUniqueMb(pid: number): number | null {
  const frames = new Set<number>();
  for (const p of processTree(pid)) if (!addFrames(p, frames)) return null;
  return (frames.size * PAGE) / 2 ** 20;
}

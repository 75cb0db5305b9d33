/** A five-field cron matcher (minute hour day-of-month month day-of-week) for TUS_CLEANUP_SCHEDULE and extension schedules: `*`, numbers,
 * ranges `a-b`, lists `a,b`, steps `* /n` and `a-b/n`; day-of-week 0-7 (0 and 7 are Sunday). As in classic cron,
 * when both day fields are restricted a day matches either. Times are UTC. */

export interface CronSchedule {
  matches(date: Date): boolean;
}

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
] as const;

function parseField(text: string, min: number, max: number, name: string): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`Invalid cron ${name} "${text}"`);
    let from = min;
    let to = max;
    if (m[1] !== '*') {
      from = Number(m[2]);
      to = m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : from;
    }
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from < min || to > max || from > to || step < 1) throw new Error(`Invalid cron ${name} "${text}"`);
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

export function parseCron(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`A cron expression has five fields, got "${expression}"`);
  const [minute, hour, dom, month, dow] = parts.map((p, i) => parseField(p, FIELDS[i].min, FIELDS[i].max, FIELDS[i].name));
  if (dow.has(7)) dow.add(0);
  const domAny = parts[2] === '*';
  const dowAny = parts[4] === '*';
  return {
    matches(date: Date): boolean {
      if (!minute.has(date.getUTCMinutes()) || !hour.has(date.getUTCHours()) || !month.has(date.getUTCMonth() + 1)) return false;
      const domOk = dom.has(date.getUTCDate());
      const dowOk = dow.has(date.getUTCDay());
      if (domAny || dowAny) return domOk && dowOk;
      return domOk || dowOk;
    },
  };
}

/** Calls `job` in every minute the schedule matches, checking once a minute (at most once per minute, even if
 * the timer drifts). Returns a stop function. */
export function scheduleCron(
  expression: string, job: (now: Date) => Promise<unknown> | unknown, clock: () => Date = () => new Date(), checkEveryMs = 15_000,
): () => void {
  const schedule = parseCron(expression);
  let lastMinute = -1;
  let running = false;
  const tick = async () => {
    const now = clock();
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute === lastMinute || running || !schedule.matches(now)) return;
    lastMinute = minute;
    running = true;
    try { await job(now); } catch (err) { console.error('Scheduled job failed:', (err as Error).message); } finally { running = false; }
  };
  // Check a few times a minute so a late timer never skips a matching minute.
  const timer = setInterval(() => { void tick(); }, checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}

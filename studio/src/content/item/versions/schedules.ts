/** Scheduled publishing as the Studio shows it (GET/POST/PATCH /schedules, POST /schedules/{id}/cancel): the record,
 * times in the user's own zone with the zone named, the words for actions and statuses, the people who scheduled,
 * and the writes. Shared by the item editor's ScheduleControl and the review module's calendar (SchedulePage). */
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { request } from '../../../api/client.ts';
import './schedule-status.css';

export type ScheduleStatus = 'scheduled' | 'done' | 'failed' | 'cancelled';

export interface Schedule {
  id: string;
  collection: string;
  item: string;
  action: 'publish' | 'unpublish';
  version: string | null;
  scheduled_at: string;
  status: ScheduleStatus;
  scheduled_by: string | null;
  ran_at: string | null;
  error: string | null;
  /** When the row last changed: rescheduled, cancelled, or run. */
  date_updated: string | null;
}

export const SCHEDULE_FIELDS = ['id', 'collection', 'item', 'action', 'version', 'scheduled_at', 'status', 'scheduled_by', 'ran_at', 'error', 'date_updated'];

/** When a schedule that is over ended: when it ran, or when it was cancelled. */
export function endedAt(s: Schedule): string {
  return s.ran_at ?? s.date_updated ?? s.scheduled_at;
}

/** The server's words for a time field, for people ("scheduled_at" is the API's name for it). */
export function timeMessage(message: string): string {
  return message.replace(/^Invalid payload\.\s*/, '').replace(/^"scheduled_at"/, 'The time').replace(/"scheduled_at"/g, 'the time');
}

export interface VersionInfo { id: string; key: string; name: string | null; status: string }

/** Every schedule query starts with this key, so one invalidation refreshes the item's control and the calendar. */
export const SCHEDULES_KEY = 'schedules';

export const STATUS_LABELS: Record<ScheduleStatus, string> = { scheduled: 'Scheduled', done: 'Done', failed: 'Failed', cancelled: 'Cancelled' };

/** The user's time zone as IANA names it (Europe/Berlin), which is what the times are shown in. */
export const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const full = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const short = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
const day = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const dayKeyFormat = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' });

/** "Tue, 3 Jun 2025, 14:05 CEST". */
export function fullTime(iso: string | null): string {
  return iso ? full.format(new Date(iso)) : '';
}

/** "14:05". */
export function clockTime(iso: string): string {
  return clock.format(new Date(iso));
}

/** "3 Jun, 14:05". */
export function shortTime(iso: string): string {
  return short.format(new Date(iso));
}

/** The local calendar day of a time, as a sortable key (2025-06-03). */
export function dayKey(iso: string): string {
  return dayKeyFormat.format(new Date(iso));
}

/** "Today", "Tomorrow", "Yesterday", else "Tuesday, 3 June 2025". */
export function dayLabel(key: string, now = new Date()): string {
  const offset = (n: number) => dayKeyFormat.format(new Date(now.getFullYear(), now.getMonth(), now.getDate() + n, 12));
  if (key === offset(0)) return `Today, ${day.format(new Date(`${key}T12:00:00`))}`;
  if (key === offset(1)) return `Tomorrow, ${day.format(new Date(`${key}T12:00:00`))}`;
  if (key === offset(-1)) return `Yesterday, ${day.format(new Date(`${key}T12:00:00`))}`;
  return day.format(new Date(`${key}T12:00:00`));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A Date as a datetime-local input's value, in the user's zone (minutes; seconds when it has them). */
export function toInputValue(d: Date): string {
  const base = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return d.getSeconds() ? `${base}:${pad(d.getSeconds())}` : base;
}

/** A datetime-local value (the user's zone) as the instant it names, or null when it names none. */
export function fromInputValue(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** A sensible first choice: the next full hour, at least 30 minutes away. */
export function defaultTime(now = new Date()): Date {
  const d = new Date(now.getTime() + 30 * 60_000);
  d.setMinutes(0, 0, 0);
  d.setHours(d.getHours() + 1);
  return d;
}

export function versionLabel(v: VersionInfo | undefined): string {
  if (!v) return 'a draft';
  return `“${v.name || v.key}”`;
}

/** "Publish “Spring copy”", "Unpublish". */
export function actionText(s: Pick<Schedule, 'action' | 'version'>, versions: Map<string, VersionInfo>): string {
  if (s.action === 'unpublish') return 'Unpublish';
  if (!s.version) return 'Publish a deleted draft';
  return `Publish ${versionLabel(versions.get(s.version))}`;
}

/** When the schedules of a screen should be asked for again: close to the next due time, so a run shows up within
 * seconds of its time; every 2 s once due (the scheduler scans every few seconds), backing off if it stays due. */
export function pollDelay(list: Schedule[] | undefined, now = Date.now()): number | false {
  const due = (list ?? []).filter((s) => s.status === 'scheduled').map((s) => Date.parse(s.scheduled_at));
  if (due.length === 0) return false;
  const ms = Math.min(...due) - now;
  if (ms < -120_000) return 15_000;
  if (ms <= 0) return 2000;
  return Math.min(Math.max(ms + 800, 2000), 60_000);
}

export interface Person { id: string; email?: string | null; first_name?: string | null; last_name?: string | null }

/** The people who scheduled, from GET /users (one request; a user who may read only themselves sees "you" and
 * "another user"). */
export function usePeople(ids: (string | null)[]): Map<string, Person> {
  const unique = [...new Set(ids.filter((x): x is string => Boolean(x)))].sort();
  const { data } = useQuery({
    queryKey: ['people', unique],
    enabled: unique.length > 0,
    retry: false,
    staleTime: 5 * 60_000,
    queryFn: ({ signal }) => request<Person[]>('GET', '/users', { query: { filter: { id: { _in: unique } }, fields: ['id', 'email', 'first_name', 'last_name'], limit: -1 }, signal }),
  });
  return new Map((data ?? []).map((p) => [p.id, p]));
}

/** Who scheduled it, as a sentence goes on ("by you", "by Ada Lovelace"); `start` capitalises for a cell of its own. */
export function personText(id: string | null, people: Map<string, Person>, me: string | undefined, start = false): string {
  const text = !id ? 'a deleted user' : id === me ? 'you' : (() => {
    const p = people.get(id);
    return p ? [p.first_name, p.last_name].filter(Boolean).join(' ') || p.email || 'another user' : 'another user';
  })();
  return start ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

export async function createSchedule(body: { action: 'publish' | 'unpublish'; version?: string; collection?: string; item?: string; scheduled_at: string }): Promise<string> {
  return request<string>('POST', '/schedules', { body });
}

export async function reschedule(id: string, at: Date): Promise<void> {
  await request('PATCH', `/schedules/${encodeURIComponent(id)}`, { body: { scheduled_at: at.toISOString() } });
}

export async function cancelSchedule(id: string): Promise<void> {
  await request('POST', `/schedules/${encodeURIComponent(id)}/cancel`);
}

export function refreshSchedules(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: [SCHEDULES_KEY] });
}

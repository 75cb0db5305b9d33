/** Timed publishing from the item editor's header: a button that names what comes next ("Publishes 3 Jun, 14:05"),
 * opening a dialog with the item's upcoming schedules (reschedule, cancel), "Schedule publishing" of a draft (the one
 * open in the editor, or one picked from the item's drafts), "Schedule unpublishing" of the item, and its recent runs
 * with the reason of a failed one. Times are the user's own zone, named. While something is due the schedules are
 * asked for again around its time, and when a run happened the item, its versions and revisions are reloaded, so the
 * editor shows the published values without a reload. Shown to users with versioning:view (the API decides the rest). */
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { createPortal } from 'react-dom';
import { Link } from 'wouter';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../api/client.ts';
import { ApiError } from '../../../api/errors.ts';
import { useCapabilities } from '../../../app/capabilities.ts';
import { useSession } from '../../../app/session.tsx';
import { Dialog } from '../../../ui/Dialog.tsx';
import { ErrorNotice } from '../../../ui/ErrorNotice.tsx';
import { can, fieldsOf, useAllFields, useCollections, usePermissions, usePolicyGlobals } from '../../schema.ts';
import {
  actionText, cancelSchedule, createSchedule, defaultTime, endedAt, fromInputValue, fullTime, personText, pollDelay, refreshSchedules, reschedule,
  SCHEDULE_FIELDS, SCHEDULES_KEY, shortTime, STATUS_LABELS, TIME_ZONE, timeMessage, toInputValue, usePeople, versionLabel, type Schedule, type VersionInfo,
} from './schedules.ts';
import './schedule-control.css';

export interface ScheduleControlProps {
  collection: string;
  /** The item's primary key as a string (for new content: the key the version will create). */
  item: string;
  /** The version open in the editor, or null on the main item. */
  version: { id: string; key: string; name: string | null; status: string } | null;
}

export function ScheduleControl(props: ScheduleControlProps) {
  const caps = useCapabilities();
  if (!caps.ready || !caps.has('versioning:view')) return null;
  return <Control {...props} />;
}

/** Drafts a publish can be scheduled for: not promoted yet. */
const SCHEDULABLE = new Set(['draft', 'rejected', 'pending']);

function Control({ collection, item, version }: ScheduleControlProps) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const schedules = useQuery({
    queryKey: [SCHEDULES_KEY, 'item', collection, item],
    queryFn: ({ signal }) => request<Schedule[]>('GET', '/schedules', {
      query: { filter: { _and: [{ collection: { _eq: collection } }, { item: { _eq: item } }] }, fields: SCHEDULE_FIELDS, sort: '-scheduled_at', limit: 25 },
      signal,
    }),
    refetchInterval: (q) => pollDelay(q.state.data),
  });
  const versions = useQuery({
    queryKey: ['versions', 'of-item', collection, item],
    queryFn: ({ signal }) => request<VersionInfo[]>('GET', '/versions', {
      query: { filter: { _and: [{ collection: { _eq: collection } }, { item: { _eq: item } }] }, fields: ['id', 'key', 'name', 'status'], sort: '-date_updated', limit: 100 },
      signal,
    }),
  });
  const list = schedules.data ?? [];
  const upcoming = list.filter((s) => s.status === 'scheduled').sort((a, b) => Date.parse(a.scheduled_at) - Date.parse(b.scheduled_at));
  const recent = list.filter((s) => s.status !== 'scheduled').sort((a, b) => Date.parse(endedAt(b)) - Date.parse(endedAt(a))).slice(0, 5);
  const versionMap = useMemo(() => new Map((versions.data ?? []).map((v) => [v.id, v])), [versions.data]);

  // A run seen happening: the item, its drafts and revisions are read again, and the change is announced.
  const seen = useRef<Map<string, string> | null>(null);
  useEffect(() => {
    if (!schedules.data) return;
    const before = seen.current;
    seen.current = new Map(schedules.data.map((s) => [s.id, s.status]));
    if (!before) return;
    const ran = schedules.data.filter((s) => before.get(s.id) === 'scheduled' && (s.status === 'done' || s.status === 'failed'));
    if (ran.length === 0) return;
    void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== SCHEDULES_KEY && q.queryKey.includes(collection) });
    const last = ran[0];
    setAnnouncement(last.status === 'done'
      ? `${last.action === 'publish' ? 'Published' : 'Unpublished'} on schedule.`
      : `The scheduled ${last.action === 'publish' ? 'publishing' : 'unpublishing'} failed: ${last.error ?? 'no reason given'}`);
  }, [schedules.data, queryClient, collection]);

  const next = upcoming[0];
  const failedLast = !next && recent[0]?.status === 'failed';
  const label = next
    ? `${next.action === 'publish' ? 'Publishes' : 'Unpublishes'} ${shortTime(next.scheduled_at)}${upcoming.length > 1 ? ` (+${upcoming.length - 1})` : ''}`
    : failedLast ? 'Scheduled run failed' : 'Schedule…';
  return (
    <>
      <button type="button" className={`btn schedule-trigger${next ? ' is-scheduled' : ''}${failedLast ? ' is-failed' : ''}`} aria-haspopup="dialog"
        title={next ? `Scheduled: ${actionText(next, versionMap)}, ${fullTime(next.scheduled_at)}` : 'Schedule publishing or unpublishing'}
        onClick={() => setOpen(true)}>
        <span aria-hidden="true" className="schedule-glyph">◷</span>{label}
      </button>
      <span role="status" className="visually-hidden">{announcement}</span>
      {/* In a portal: the editor's header sits inside the item's <form>, and the dialog holds forms of its own. */}
      {open && createPortal(
        <ScheduleDialog collection={collection} item={item} version={version} upcoming={upcoming} recent={recent} versions={versions.data ?? []}
          versionMap={versionMap} loadError={schedules.error ?? versions.error} announcement={announcement} onClose={() => setOpen(false)}
          onRetry={() => { void schedules.refetch(); void versions.refetch(); }} />,
        document.body,
      )}
    </>
  );
}

interface DialogProps extends ScheduleControlProps {
  upcoming: Schedule[];
  recent: Schedule[];
  versions: VersionInfo[];
  versionMap: Map<string, VersionInfo>;
  loadError: unknown;
  announcement: string;
  onClose(): void;
  onRetry(): void;
}

function ScheduleDialog(props: DialogProps) {
  const { collection, item, version, upcoming, recent, versions, versionMap } = props;
  const caps = useCapabilities();
  const { me } = useSession();
  const people = usePeople([...upcoming, ...recent].map((s) => s.scheduled_by));
  const collections = useCollections();
  const fields = useAllFields();
  const perms = usePermissions();
  const globals = usePolicyGlobals();
  const admin = globals.data?.admin_access ?? false;

  const meta = collections.data?.find((c) => c.collection === collection)?.meta;
  const ownFields = fieldsOf(fields.data, collection);
  const archive = meta?.archive_field && meta.archive_value !== null && meta.archive_value !== undefined && ownFields.some((f) => f.field === meta.archive_field)
    ? { field: meta.archive_field, value: meta.archive_value } : null;
  const hasStatus = ownFields.some((f) => f.field === 'status');
  const unpublishEffect = archive ? `Sets ${archive.field} to “${archive.value}”.` : hasStatus ? 'Sets status to “draft”.' : null;
  const mayUnpublish = can(perms.data, admin, collection, 'update');
  const mayPublish = caps.has('versioning:create') || caps.has('versioning:manage');

  const scheduledVersions = new Set(upcoming.filter((s) => s.action === 'publish').map((s) => s.version));
  const drafts = versions.filter((v) => SCHEDULABLE.has(v.status) && !scheduledVersions.has(v.id));
  if (version && SCHEDULABLE.has(version.status) && !scheduledVersions.has(version.id) && !drafts.some((d) => d.id === version.id)) drafts.unshift(version);

  return (
    <Dialog title="Publishing schedule" wide onClose={props.onClose}
      footer={<>
        <Link href="~/admin/review/schedule" className="btn btn-ghost schedule-all-link">All scheduled publishing</Link>
        <span className="spacer" />
        <button type="button" className="btn" onClick={props.onClose}>Done</button>
      </>}>
      <p className="muted schedule-zone">Times are in your time zone, {TIME_ZONE}.</p>
      {props.announcement && <p className="notice" role="status">{props.announcement}</p>}
      {props.loadError !== null && props.loadError !== undefined && <ErrorNotice error={props.loadError} onRetry={props.onRetry} />}
      <section className="schedule-section" aria-labelledby="schedule-upcoming">
        <h3 id="schedule-upcoming">Upcoming</h3>
        {upcoming.length === 0 ? <p className="muted">Nothing is scheduled for this item.</p> : (
          <ul className="schedule-list">
            {upcoming.map((s) => <UpcomingRow key={s.id} schedule={s} versionMap={versionMap} by={personText(s.scheduled_by, people, me?.id)} />)}
          </ul>
        )}
      </section>
      {mayPublish && (
        <PublishForm collection={collection} item={item} drafts={drafts} preferred={version?.id ?? null} />
      )}
      {mayUnpublish && (
        unpublishEffect ? <UnpublishForm collection={collection} item={item} effect={unpublishEffect} /> : (
          <section className="schedule-section" aria-labelledby="schedule-unpublish-none">
            <h3 id="schedule-unpublish-none">Schedule unpublishing</h3>
            <p className="muted">Items of this collection cannot be unpublished: it has no archive field and no status field.</p>
          </section>
        )
      )}
      <section className="schedule-section" aria-labelledby="schedule-recent">
        <h3 id="schedule-recent">Recent</h3>
        {recent.length === 0 ? <p className="muted">No schedule of this item has run or been cancelled yet.</p> : (
          <ul className="schedule-list">
            {recent.map((s) => (
              <li key={s.id} className={`schedule-row is-${s.status}`}>
                <span className={`badge schedule-status status-${s.status}`}>{STATUS_LABELS[s.status]}</span>
                <div className="schedule-what">
                  <span><strong>{actionText(s, versionMap)}</strong> <span className="muted">by {personText(s.scheduled_by, people, me?.id)}</span></span>
                  <span className="muted">
                    {s.status === 'cancelled' ? <>cancelled <time dateTime={endedAt(s)}>{fullTime(endedAt(s))}</time>, was due {fullTime(s.scheduled_at)}</>
                      : <>ran <time dateTime={s.ran_at ?? s.scheduled_at}>{fullTime(s.ran_at ?? s.scheduled_at)}</time></>}
                  </span>
                  {s.status === 'failed' && <span className="schedule-error">Why it failed: {s.error ?? 'no reason was recorded.'}</span>}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Dialog>
  );
}

/** A time input in the user's zone with its label, note and error; answers the chosen instant through `value`. */
function TimeField({ label, value, onChange, error, describedBy, autoFocus }: {
  label: string; value: string; onChange(v: string): void; error?: string; describedBy?: string; autoFocus?: boolean;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field schedule-time">
      <label htmlFor={id}>{label} <span className="muted">({TIME_ZONE})</span></label>
      <input id={id} type="datetime-local" value={value} autoFocus={autoFocus} onChange={(e) => onChange(e.target.value)} min={toInputValue(new Date(Math.floor(Date.now() / 60_000) * 60_000))}
        aria-invalid={error ? true : undefined} aria-describedby={[error ? errorId : null, describedBy].filter(Boolean).join(' ') || undefined} required />
      {error && <span className="field-error" id={errorId}>{error}</span>}
    </div>
  );
}

/** The instant of a time input, or the words for what is wrong with it. */
function chosenTime(value: string): Date | string {
  const at = fromInputValue(value);
  if (!at) return 'Choose a date and a time.';
  if (at.getTime() <= Date.now()) return 'This time has passed; choose a later one.';
  return at;
}

function useWrite() {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [fieldError, setFieldError] = useState<string | undefined>();
  const [done, setDone] = useState('');
  async function run(fn: () => Promise<unknown>, success: string): Promise<boolean> {
    setBusy(true);
    setError(null);
    setFieldError(undefined);
    setDone('');
    try {
      await fn();
      await refreshSchedules(queryClient);
      setDone(success);
      return true;
    } catch (err) {
      const byField = err instanceof ApiError ? err.fieldErrors() : {};
      if (byField.scheduled_at) setFieldError(timeMessage(byField.scheduled_at));
      else setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, fieldError, setFieldError, done, run };
}

function PublishForm({ collection, item, drafts, preferred }: { collection: string; item: string; drafts: VersionInfo[]; preferred: string | null }) {
  const [chosen, setChosen] = useState<string | null>(preferred);
  const [time, setTime] = useState(() => toInputValue(defaultTime()));
  const write = useWrite();
  const selectId = useId();
  const current = drafts.find((d) => d.id === chosen) ?? drafts[0];
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!current || write.busy) return;
    const at = chosenTime(time);
    if (typeof at === 'string') { write.setFieldError(at); return; }
    const ok = await write.run(() => createSchedule({ action: 'publish', version: current.id, collection, item, scheduled_at: at.toISOString() }),
      `Publishing of ${versionLabel(current)} is scheduled for ${fullTime(at.toISOString())}.`);
    if (ok) setTime(toInputValue(defaultTime()));
  }
  return (
    <section className="schedule-section" aria-labelledby="schedule-publish">
      <h3 id="schedule-publish">Schedule publishing</h3>
      {drafts.length === 0 ? <p className="muted">This item has no draft waiting to be published. Save your changes as a draft version first.</p> : (
        <form className="schedule-form" onSubmit={(e) => void submit(e)} noValidate>
          <div className="field">
            <label htmlFor={selectId}>Draft to publish</label>
            <select id={selectId} value={current?.id ?? ''} onChange={(e) => setChosen(e.target.value)}>
              {drafts.map((d) => <option key={d.id} value={d.id}>{d.name || d.key}{d.status !== 'draft' ? ` (${d.status})` : ''}</option>)}
            </select>
          </div>
          <TimeField label="Publish at" value={time} onChange={setTime} error={write.fieldError} />
          <button type="submit" className="btn btn-primary" disabled={write.busy}>{write.busy ? 'Scheduling…' : 'Schedule publishing'}</button>
        </form>
      )}
      {write.error !== null && <ErrorNotice error={write.error} />}
      {write.done && <p className="notice notice-success" role="status">{write.done}</p>}
    </section>
  );
}

function UnpublishForm({ collection, item, effect }: { collection: string; item: string; effect: string }) {
  const [time, setTime] = useState(() => toInputValue(defaultTime()));
  const write = useWrite();
  const noteId = useId();
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (write.busy) return;
    const at = chosenTime(time);
    if (typeof at === 'string') { write.setFieldError(at); return; }
    const ok = await write.run(() => createSchedule({ action: 'unpublish', collection, item, scheduled_at: at.toISOString() }),
      `Unpublishing is scheduled for ${fullTime(at.toISOString())}.`);
    if (ok) setTime(toInputValue(defaultTime()));
  }
  return (
    <section className="schedule-section" aria-labelledby="schedule-unpublish">
      <h3 id="schedule-unpublish">Schedule unpublishing</h3>
      <form className="schedule-form" onSubmit={(e) => void submit(e)} noValidate>
        <TimeField label="Unpublish at" value={time} onChange={setTime} error={write.fieldError} describedBy={noteId} />
        <button type="submit" className="btn" disabled={write.busy}>{write.busy ? 'Scheduling…' : 'Schedule unpublishing'}</button>
      </form>
      <p className="field-note" id={noteId}>{effect} The item stays as it is until then.</p>
      {write.error !== null && <ErrorNotice error={write.error} />}
      {write.done && <p className="notice notice-success" role="status">{write.done}</p>}
    </section>
  );
}

function UpcomingRow({ schedule: s, versionMap, by }: { schedule: Schedule; versionMap: Map<string, VersionInfo>; by: string }) {
  const [editing, setEditing] = useState(false);
  const rescheduleButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  // Focus goes back to "Reschedule" when the time form closes (it took the button's place).
  useEffect(() => {
    if (wasEditing.current && !editing) rescheduleButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const [time, setTime] = useState(() => toInputValue(new Date(s.scheduled_at)));
  const write = useWrite();
  const what = actionText(s, versionMap);
  const overdue = Date.parse(s.scheduled_at) < Date.now();
  async function save(e: FormEvent) {
    e.preventDefault();
    if (write.busy) return;
    const at = chosenTime(time);
    if (typeof at === 'string') { write.setFieldError(at); return; }
    if (await write.run(() => reschedule(s.id, at), `Moved to ${fullTime(at.toISOString())}.`)) setEditing(false);
  }
  return (
    <li className="schedule-row">
      <span className="badge schedule-status status-scheduled">{overdue ? 'Due now' : 'Scheduled'}</span>
      <div className="schedule-what">
        <span><strong>{what}</strong> <span className="muted">by {by}</span></span>
        <time dateTime={s.scheduled_at}>{fullTime(s.scheduled_at)}</time>
        {editing && (
          <form className="schedule-form" onSubmit={(e) => void save(e)} noValidate>
            <TimeField label={`New time to ${what.charAt(0).toLowerCase()}${what.slice(1)}`} value={time} onChange={setTime} error={write.fieldError} autoFocus />
            <button type="submit" className="btn btn-primary" disabled={write.busy}>{write.busy ? 'Saving…' : 'Save time'}</button>
            <button type="button" className="btn" onClick={() => { setEditing(false); setTime(toInputValue(new Date(s.scheduled_at))); write.setFieldError(undefined); }}>Keep time</button>
          </form>
        )}
        {write.error !== null && <ErrorNotice error={write.error} />}
        {write.done && <span className="schedule-done" role="status">{write.done}</span>}
      </div>
      {!editing && (
        <div className="schedule-row-actions">
          <button type="button" ref={rescheduleButton} className="btn btn-small" onClick={() => setEditing(true)} disabled={write.busy}>Reschedule</button>
          <button type="button" className="btn btn-small btn-danger" disabled={write.busy} onClick={() => void write.run(() => cancelSchedule(s.id), 'Cancelled.')}>
            Cancel schedule
          </button>
        </div>
      )}
    </li>
  );
}

/** The subscriptions of this process and the fan-out of changes to them (docs/realtime.md).
 *
 * Subscribers with the same effective read (collection, query, and the permissions they read under) form a group,
 * and a batch of changes costs one SQL read per group that the batch concerns, whatever the number of subscribers:
 * the rows are read as the group may read them (REST's read path, core/items/read.ts, with the changed keys as an
 * extra filter), and the same messages go to every member. Deletes need no read.
 *
 * Order and exactly-once: changes are fanned out one batch at a time in log order; each subscription remembers the
 * id of the last change it was given (its cursor) and skips anything at or before it. A new subscription buffers
 * what arrives while its first answer (the `init` rows, or the changes it missed since its `since` id) is read, and
 * then flushes the buffer past its cursor. */
import { systemAccountability, type Accountability } from '../access/accountability.ts';
import { loadPermissions, requirePermission } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidPayloadError, InvalidQueryError, UnprocessableContentError } from '../errors.ts';
import { parseLimits } from '../query/limits.ts';
import { readItems } from '../items/read.ts';
import { parseQuery } from '../query/parse.ts';
import type { Filter, Query } from '../query/types.ts';
import type { ConfigPort, DatabasePort, SchemaPort } from '../ports.ts';
import { compareIds, isChangeId, type Change, type ChangeAction } from './change.ts';
import { checkFeedQuery, feedOf } from './feeds.ts';
import type { ChangeLog } from './log.ts';

export type Key = string | number;

/** One connection (a WebSocket, an SSE stream). */
export interface RealtimeClient {
  /** Who is asking now; null while the connection holds no valid credential (nothing is delivered then). */
  readonly accountability: Accountability | null;
  /** Queues a message; the transport drops a connection that does not keep up. `text`, when given, is `message`
   * already serialised (a fan-out serialises a message's rows once for all the subscribers it goes to). */
  send(message: Record<string, unknown>, text?: string): void;
}

export interface SubscribeRequest {
  collection?: unknown;
  query?: unknown;
  event?: unknown;
  item?: unknown;
  uid?: unknown;
  since?: unknown;
}

/** System collections a subscription may name, read under their own permissions as their endpoints read them
 * (the rest hold credentials or configuration, and change through paths that are not item writes). */
export const SYSTEM_COLLECTIONS = new Set(['svc_notifications', 'svc_comments', 'svc_versions']);

const EVENTS: ChangeAction[] = ['create', 'update', 'delete'];
/** Query parameters a subscription accepts; aggregates and paging meta make no sense for a change feed. */
const QUERY_KEYS = new Set(['fields', 'filter', 'sort', 'limit', 'offset', 'page', 'search', 'deep', 'alias', 'backlink']);
/** Keys a group remembers having sent (so an update that takes a row out of its reach becomes a delete). */
const SEEN_MAX = 50_000;
/** Event ids remembered to drop a change appended twice (the writer's tap and the relay's backstop). */
const DEDUP_MAX = 20_000;
/** The most changes fanned out together (one read per group for all of them). */
const MAX_BATCH = 500;
/** Subscribers served between two yields to the event loop during a fan-out. */
const YIELD_EVERY = 200;

/** `data` of a delete holds the keys the group may have been sent; `all` every deleted key (for a subscription
 * that resumed, whose earlier rows the group cannot know). */
interface Message {
  id: string;
  event: ChangeAction;
  data: unknown[];
  all?: unknown[];
  /** A message that stands for several consecutive changes of the same kind: the id of the first of them, and
   * the messages it merged (sent one by one to a subscriber whose cursor lies inside the run). */
  first?: string;
  parts?: Message[];
  /** `data` / `all` serialised, once. */
  json?: string;
  allJson?: string;
}

/** Consecutive messages of the same kind become one (its rows or keys together, the last id): under load a
 * subscriber gets a message per run of creates, updates or deletes in a batch rather than one per change, in the
 * same order. A Directus client reads `data` as an array either way. */
function merge(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    if (last && last.event === m.event) {
      const parts = last.parts ?? [{ ...last }];
      parts.push(m);
      out[out.length - 1] = {
        id: m.id, event: m.event, data: [...last.data, ...m.data], first: last.first ?? last.id, parts,
        ...(last.all || m.all ? { all: [...(last.all ?? last.data), ...(m.all ?? m.data)] } : {}),
      };
    } else {
      out.push(m);
    }
  }
  return out;
}

class Group {
  readonly members = new Set<Subscription>();
  /** Keys of rows this group was sent, in insertion order; `overflow` once it forgot some. */
  readonly seen = new Set<string>();
  overflow = false;

  constructor(readonly key: string, readonly collection: string, readonly query: Query, readonly accountability: Accountability,
    readonly pk: string, readonly stripPk: boolean) {}

  remember(keys: Key[]): void {
    for (const k of keys) {
      const s = String(k);
      this.seen.delete(s);
      this.seen.add(s);
    }
    while (this.seen.size > SEEN_MAX) {
      this.seen.delete(this.seen.values().next().value!);
      this.overflow = true;
    }
  }

  /** Whether a row of this key may have been sent (an update that hides it must then be announced). */
  mayHaveSent(key: Key): boolean {
    return this.overflow || this.seen.has(String(key));
  }
}

export class Subscription {
  group!: Group;
  /** The last change id given to this subscription. */
  cursor = '0-0';
  /** Messages that arrived while the first answer was being read. */
  pending: Message[] | null = [];
  /** Began with `since`: it holds rows from before, which its group was not sent, so it gets every delete. */
  resumed = false;

  constructor(readonly client: RealtimeClient, readonly uid: string | undefined, readonly collection: string,
    readonly query: Query, readonly event: ChangeAction | undefined) {}

  deliver(m: Message): void {
    if (this.event && this.event !== m.event) return;
    if (this.pending) { this.pending.push(m); return; }
    if (compareIds(m.id, this.cursor) <= 0) return;
    if (m.parts && m.first && compareIds(m.first, this.cursor) <= 0) {
      // Part of the run was given already (a subscription that began inside it): the rest, one by one.
      for (const part of m.parts) this.deliver(part);
      return;
    }
    const everything = this.resumed && m.all !== undefined;
    const data = everything ? m.all! : m.data;
    // A delete of rows this subscriber was never sent is not its business (nor are their keys).
    if (data.length === 0) return;
    this.cursor = m.id;
    const json = everything ? (m.allJson ??= JSON.stringify(data)) : (m.json ??= JSON.stringify(data));
    const text = `{"type":"subscription","event":"${m.event}","data":${json}${this.uid === undefined ? '' : `,"uid":${JSON.stringify(this.uid)}`},"id":"${m.id}"}`;
    this.client.send({ type: 'subscription', event: m.event, data, uid: this.uid, id: m.id }, text);
  }

  /** Ends the buffering: what arrived meanwhile goes out past the cursor. */
  open(): void {
    const pending = this.pending ?? [];
    this.pending = null;
    for (const m of pending) this.deliver(m);
  }
}

export interface HubOptions {
  /** Subscriptions per connection (WEBSOCKETS_MAX_SUBSCRIPTIONS). */
  maxSubscriptions: number;
}

export class RealtimeHub {
  readonly #groups = new Map<string, Group>();
  readonly #byCollection = new Map<string, Set<Group>>();
  readonly #clients = new Map<RealtimeClient, Map<string, Subscription>>();
  readonly #seenEvents = new Set<string>();
  #chain: Promise<void> = Promise.resolve();
  /** Changes read from the log, not yet fanned out. */
  readonly #queued: Change[] = [];
  #anonymous = 0;
  /** Fan-out work in progress (tests and the bench wait for it). */
  dispatched = 0;

  constructor(private readonly services: ConfigPort & DatabasePort & SchemaPort, readonly log: ChangeLog, private readonly opts: HubOptions) {}

  /** Starts reading the log. */
  start(): void {
    this.log.listen((changes) => {
      const idle = this.#queued.length === 0;
      for (const c of changes) this.#queued.push(c);
      // Changes that arrive while a batch is being read wait and go out together in the next one: under load a
      // group reads once for many changes, not once per change.
      if (idle) {
        this.#chain = this.#chain.then(() => {
          const batch = this.#queued.splice(0, MAX_BATCH);
          const more = this.#queued.length > 0;
          const done = this.#dispatch(batch);
          return more ? done.then(() => this.#drainQueued()) : done;
        }).catch((err: unknown) => {
          console.error('realtime: fan-out failed:', err);
        });
      }
    });
  }

  /** The changes queued beyond one batch, in batches. */
  async #drainQueued(): Promise<void> {
    while (this.#queued.length) await this.#dispatch(this.#queued.splice(0, MAX_BATCH));
  }

  /** Resolves once every batch handed over so far has been fanned out. */
  async idle(): Promise<void> {
    let last: Promise<void>;
    do {
      last = this.#chain;
      await last;
    } while (last !== this.#chain);
  }

  /** Subscribers and groups, for the bench and the metrics. */
  stats(): { clients: number; subscriptions: number; groups: number } {
    let subscriptions = 0;
    for (const subs of this.#clients.values()) subscriptions += subs.size;
    return { clients: this.#clients.size, subscriptions, groups: this.#groups.size };
  }

  async #ctx(accountability: Accountability, collection: string): Promise<ServiceContext> {
    return {
      db: this.services.database.db,
      schema: await this.services.schema.get(),
      accountability,
      config: this.services.config,
      system: collection.startsWith('svc_'),
    };
  }

  /** Validates and registers a subscription, then sends its first answer: `init` with the current rows, or the
   * changes missed since `since` (`resync` then `init` when they are no longer kept). Throws a 4xx error for a bad
   * request or a collection the caller may not read. */
  async subscribe(client: RealtimeClient, req: SubscribeRequest): Promise<void> {
    const accountability = client.accountability;
    if (!accountability) throw new ForbiddenError();
    if (typeof req.collection !== 'string' || req.collection === '') throw new InvalidPayloadError('"collection" is required.');
    const collection = req.collection;
    const uid = req.uid === undefined || req.uid === null ? undefined : String(req.uid);
    if (req.event !== undefined && req.event !== null && !EVENTS.includes(req.event as ChangeAction)) {
      throw new InvalidPayloadError('"event" must be create, update or delete.');
    }
    if (req.since !== undefined && req.since !== null && !isChangeId(req.since)) throw new InvalidPayloadError('"since" must be an event id.');
    const subs = this.#clients.get(client) ?? new Map<string, Subscription>();
    const slot = uid ?? `#${++this.#anonymous}`;
    if (!subs.has(slot) && subs.size >= this.opts.maxSubscriptions) {
      throw new UnprocessableContentError(`A connection may hold at most ${this.opts.maxSubscriptions} subscriptions.`);
    }
    const ctx = await this.#ctx(accountability, collection);
    const query = this.#parse(ctx, collection, req.query, req.item);
    await this.#authorize(ctx, collection);
    const sub = new Subscription(client, uid, collection, query, (req.event ?? undefined) as ChangeAction | undefined);
    sub.group = await this.#groupFor(ctx, collection, query);
    subs.get(slot) && this.#remove(subs.get(slot)!);
    subs.set(slot, sub);
    this.#clients.set(client, subs);
    sub.group.members.add(sub);
    try {
      const since = typeof req.since === 'string' ? req.since : null;
      const missed = since ? await this.log.since(since) : null;
      if (since && missed) {
        sub.cursor = since;
        sub.resumed = true;
        // The query is checked by a read as an init would (fields, filters, paths the caller may not use are refused
        // now, not at the first change).
        await this.#read(ctx, sub.group, { ...query, limit: 1, offset: undefined, page: undefined });
        await this.#replay(sub, missed);
      } else {
        await this.#init(ctx, sub, since !== null);
      }
    } catch (err) {
      this.#remove(sub);
      subs.delete(slot);
      throw err;
    }
    sub.open();
  }

  /** A subscription's `init`: the rows of its query now, from the log's head on (`resync` first when it asked to
   * resume from changes the log no longer keeps). */
  async #init(ctx: ServiceContext, sub: Subscription, resync: boolean): Promise<void> {
    if (resync) sub.client.send({ type: 'subscription', event: 'resync', uid: sub.uid });
    sub.cursor = await this.log.head();
    const rows = await this.#read(ctx, sub.group, sub.query);
    sub.group.remember(rows.keys);
    sub.client.send({ type: 'subscription', event: 'init', data: rows.data, uid: sub.uid });
  }

  unsubscribe(client: RealtimeClient, uid?: unknown): void {
    const subs = this.#clients.get(client);
    if (!subs) return;
    if (uid === undefined || uid === null) {
      this.drop(client);
      return;
    }
    const sub = subs.get(String(uid));
    if (!sub) return;
    this.#remove(sub);
    subs.delete(String(uid));
  }

  /** Forgets a connection (closed, or its credential is gone). */
  drop(client: RealtimeClient): void {
    const subs = this.#clients.get(client);
    if (!subs) return;
    for (const sub of subs.values()) this.#remove(sub);
    this.#clients.delete(client);
  }

  /** After the connection's accountability changed (a re-authentication, a role or permission change): its
   * subscriptions move to the groups of the new permissions. A subscription the caller may no longer read is
   * ended with an error message. With `catchUp` (a connection that went on as the Public role after its credential
   * failed, which delivered nothing in between), each subscription that moves is also sent the changes since its
   * cursor, read with its new group's rights, before the live ones that arrive meanwhile; when those are no longer
   * kept, `resync` and a fresh `init`, as a resume from an id the log has dropped gets. */
  async regroup(client: RealtimeClient, next: Accountability | null, commit: () => void, opts: { catchUp?: boolean } = {}): Promise<void> {
    const subs = this.#clients.get(client);
    // The new groups are found first; then, with no await in between, the connection takes its new accountability
    // (`commit`) and its subscriptions move: a fan-out never sees the new caller in an old group (rows of the old
    // permissions) nor the old caller in a new one.
    const plans: { slot: string; sub: Subscription; ctx: ServiceContext | null; group: Group | null; error: unknown }[] = [];
    for (const [slot, sub] of [...(subs ?? [])]) {
      try {
        if (!next) throw new ForbiddenError();
        const ctx = await this.#ctx(next, sub.collection);
        await this.#authorize(ctx, sub.collection);
        plans.push({ slot, sub, ctx, group: await this.#groupFor(ctx, sub.collection, sub.query), error: null });
      } catch (err) {
        plans.push({ slot, sub, ctx: null, group: null, error: err });
      }
    }
    commit();
    const moved: { sub: Subscription; ctx: ServiceContext }[] = [];
    for (const { slot, sub, ctx, group, error } of plans) {
      if (!group) {
        this.#remove(sub);
        subs?.delete(slot);
        client.send({ type: 'subscription', event: 'error', uid: sub.uid, error: errorBody(error) });
        continue;
      }
      if (group === sub.group) continue;
      this.#remove(sub);
      sub.group = group;
      group.members.add(sub);
      if (opts.catchUp && !sub.pending && ctx) {
        sub.pending = [];
        moved.push({ sub, ctx });
      }
    }
    // A group found for a subscription that went meanwhile (closed, unsubscribed) is dropped again.
    for (const { group } of plans) {
      if (group && group.members.size === 0 && this.#groups.get(group.key) === group) this.#forget(group);
    }
    for (const { sub, ctx } of moved) {
      try {
        const missed = await this.log.since(sub.cursor);
        if (!sub.group.members.has(sub)) continue;
        if (missed) {
          await this.#replay(sub, missed);
        } else {
          // No longer kept (the subscription's last change is older than the retention): the rows as they are now.
          sub.resumed = false;
          await this.#init(ctx, sub, true);
        }
      } catch (err) {
        console.error('realtime: could not send a subscription the changes it missed:', err);
      } finally {
        sub.open();
      }
    }
  }

  #remove(sub: Subscription): void {
    const group = sub.group;
    if (!group) return;
    group.members.delete(sub);
    if (group.members.size === 0) this.#forget(group);
  }

  #forget(group: Group): void {
    this.#groups.delete(group.key);
    const set = this.#byCollection.get(group.collection);
    set?.delete(group);
    if (set && set.size === 0) this.#byCollection.delete(group.collection);
  }

  async #authorize(ctx: ServiceContext, collection: string): Promise<void> {
    const feed = feedOf(collection);
    if (feed) await feed.authorize(ctx);
    else await requirePermission(ctx, collection, 'read');
  }

  #parse(ctx: ServiceContext, collection: string, raw: unknown, item: unknown): Query {
    if (feedOf(collection)) {
      checkFeedQuery(raw);
      if (item !== undefined && item !== null) throw new InvalidPayloadError('"item" is not available in this subscription.');
      return {};
    }
    const schema = ctx.schema.collections;
    if (!Object.hasOwn(schema, collection) || (collection.startsWith('svc_') && !SYSTEM_COLLECTIONS.has(collection))) {
      throw new ForbiddenError();
    }
    if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
      throw new InvalidQueryError('"query" must be an object.');
    }
    const input = (raw ?? {}) as Record<string, unknown>;
    for (const k of Object.keys(input)) {
      if (!QUERY_KEYS.has(k)) throw new InvalidQueryError(`"${k}" is not available in a subscription.`);
    }
    const { config } = this.services;
    const query = parseQuery(input, parseLimits(config));
    if (item !== undefined && item !== null) {
      if (typeof item !== 'string' && typeof item !== 'number') throw new InvalidPayloadError('"item" must be a primary key.');
      const pk = schema[collection].primary;
      if (!pk) throw new InvalidPayloadError(`${collection} has no primary key.`);
      const one: Filter = { [pk]: { _eq: item } };
      query.filter = query.filter ? { _and: [query.filter, one] } : one;
    }
    return query;
  }

  /** The group of subscribers that read `collection` with `query` exactly as this caller does. Users share a
   * group when their role, policies and flags match and neither the query nor the collection's read permission
   * depends on who they are. */
  async #groupFor(ctx: ServiceContext, collection: string, query: Query): Promise<Group> {
    const a = ctx.accountability;
    const feed = feedOf(collection);
    if (feed) {
      const key = `${collection}|feed|${a.user}`;
      let group = this.#groups.get(key);
      if (!group) group = this.#addGroup(new Group(key, collection, query, a, feed.key, false));
      return group;
    }
    const permissions = await loadPermissions(ctx);
    const filter = JSON.stringify(permissions.get(collection, 'read')?.filter ?? null);
    const queryText = JSON.stringify(query);
    const relational = (query.fields ?? []).some((f) => f.includes('.')) || query.deep !== undefined || query.alias !== undefined;
    const personal = a.user !== null && !a.admin && (filter.includes('$CURRENT_USER') || queryText.includes('$CURRENT_USER')
      || relational || collection.startsWith('svc_'));
    const who = a.admin ? `admin|${personal || queryText.includes('$CURRENT_USER') ? a.user : ''}`
      : `${a.role}|${a.policies.join(',')}|${a.app ? 1 : 0}|${personal ? a.user : ''}|${a.share ? `${a.share.id}:${a.share.item}` : ''}`;
    const key = `${collection}|${who}|${queryText}`;
    let group = this.#groups.get(key);
    if (!group) {
      const c = ctx.schema.collections[collection];
      const pk = c.primary;
      if (!pk) throw new InvalidPayloadError(`${collection} has no primary key.`);
      const fields = query.fields;
      const stripPk = !!fields && !fields.some((f) => f === '*' || f === pk);
      group = this.#addGroup(new Group(key, collection, query, a, pk, stripPk));
    }
    return group;
  }

  #addGroup(group: Group): Group {
    this.#groups.set(group.key, group);
    const set = this.#byCollection.get(group.collection) ?? new Set<Group>();
    set.add(group);
    this.#byCollection.set(group.collection, set);
    return group;
  }

  /** Rows of the group's query; with `keys`, only those rows (and without paging). */
  async #read(ctx: ServiceContext, group: Group, query: Query, keys?: Key[]): Promise<{ data: Record<string, unknown>[]; keys: Key[] }> {
    const feed = feedOf(group.collection);
    if (feed) {
      const data = keys ? await feed.read(ctx, keys) : await feed.all(ctx);
      return { data, keys: data.map((row) => row[group.pk] as Key) };
    }
    const q: Query = { ...query, meta: undefined };
    if (group.stripPk) q.fields = [...query.fields!, group.pk];
    if (keys) {
      const only: Filter = { [group.pk]: { _in: keys } };
      q.filter = q.filter ? { _and: [q.filter, only] } : only;
      q.limit = keys.length;
      q.offset = undefined;
      q.page = undefined;
    }
    const text = await readItems(ctx, group.collection, q);
    const data = (JSON.parse(text) as { data: Record<string, unknown>[] }).data;
    const found = data.map((row) => row[group.pk] as Key);
    if (group.stripPk) for (const row of data) delete row[group.pk];
    return { data, keys: found };
  }

  /** One batch of changes, in log order. */
  async #dispatch(batch: Change[]): Promise<void> {
    const changes: Change[] = [];
    for (const c of batch) {
      if (this.#seenEvents.has(c.event)) continue;
      this.#seenEvents.add(c.event);
      changes.push(c);
    }
    while (this.#seenEvents.size > DEDUP_MAX) this.#seenEvents.delete(this.#seenEvents.values().next().value!);
    const byCollection = new Map<string, Change[]>();
    for (const c of changes) {
      if (!this.#byCollection.has(c.collection)) continue;
      const list = byCollection.get(c.collection) ?? [];
      list.push(c);
      byCollection.set(c.collection, list);
    }
    if (byCollection.size === 0) return;
    this.dispatched += changes.length;
    const work: Promise<void>[] = [];
    for (const [collection, list] of byCollection) {
      for (const group of this.#byCollection.get(collection) ?? []) {
        work.push(this.#fanOut(group, list).catch((err: unknown) => {
          console.error(`realtime: reading ${collection} for a subscriber group failed:`, (err as Error).message);
        }));
      }
    }
    await Promise.all(work);
  }

  /** The messages of `changes` for one group: one read for every created or updated key. */
  async #messages(group: Group, changes: Change[]): Promise<Message[]> {
    const wanted = new Set<string>();
    const keys: Key[] = [];
    for (const c of changes) {
      if (c.action === 'delete') continue;
      for (const k of c.keys) {
        if (!wanted.has(String(k))) { wanted.add(String(k)); keys.push(k); }
      }
    }
    // A feed may have several rows under one key (the tasks of one workflow instance).
    const rows = new Map<string, Record<string, unknown>[]>();
    if (keys.length) {
      const ctx = await this.#ctx(group.accountability, group.collection);
      const read = await this.#read(ctx, group, group.query, keys);
      read.keys.forEach((k, i) => {
        const list = rows.get(String(k)) ?? [];
        list.push(read.data[i]);
        rows.set(String(k), list);
      });
    }
    const out: Message[] = [];
    for (const c of changes) {
      if (c.action === 'delete') {
        const known = c.keys.filter((k) => group.mayHaveSent(k));
        for (const k of c.keys) group.seen.delete(String(k));
        out.push({ id: c.id, event: 'delete', data: known, all: c.keys });
        continue;
      }
      const visible = c.keys.filter((k) => rows.has(String(k)));
      if (visible.length) {
        group.remember(visible);
        out.push({ id: c.id, event: c.action, data: visible.flatMap((k) => rows.get(String(k))!) });
      }
      if (c.action === 'update') {
        const unseen = c.keys.filter((k) => !rows.has(String(k)) && group.mayHaveSent(k));
        // A row this group was sent and can no longer read left its filter, unless it is gone altogether: then a
        // later change deletes it, and that delete is what the subscriber gets.
        const hidden = unseen.length ? await this.#existing(group, unseen) : [];
        if (hidden.length) {
          for (const k of hidden) group.seen.delete(String(k));
          out.push({ id: c.id, event: 'delete', data: hidden });
        }
      }
    }
    return out;
  }

  /** Which of these keys still have a row (read without the group's permissions: only to tell a row that left the
   * group's reach from one that was deleted; nothing of it is sent). */
  async #existing(group: Group, keys: Key[]): Promise<Key[]> {
    const feed = feedOf(group.collection);
    if (feed) return keys;
    const ctx = await this.#ctx(systemAccountability(), group.collection);
    const text = await readItems(ctx, group.collection, { fields: [group.pk], filter: { [group.pk]: { _in: keys } }, limit: keys.length });
    const found = new Set((JSON.parse(text) as { data: Record<string, unknown>[] }).data.map((row) => String(row[group.pk])));
    return keys.filter((k) => found.has(String(k)));
  }

  async #fanOut(group: Group, changes: Change[]): Promise<void> {
    const messages = merge(await this.#messages(group, changes));
    let sent = 0;
    for (const sub of [...group.members]) {
      if (!sub.client.accountability) continue;
      for (const m of messages) sub.deliver(m);
      // A large group yields now and then, so requests waiting on the same event loop are not held up by it.
      if (++sent % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The changes a resuming subscription missed, as messages for it alone (its group's reads, so permissions are
   * today's). */
  async #replay(sub: Subscription, missed: Change[]): Promise<void> {
    if (missed.length === 0) return;
    const own = missed.filter((c) => c.collection === sub.collection);
    const unique: Change[] = [];
    const events = new Set<string>();
    for (const c of own) {
      if (events.has(c.event)) continue;
      events.add(c.event);
      unique.push(c);
    }
    if (unique.length === 0) {
      sub.cursor = missed[missed.length - 1].id;
      return;
    }
    const messages = await this.#messages(sub.group, unique);
    const buffered = sub.pending;
    sub.pending = null;
    for (const m of messages) sub.deliver(m);
    const last = missed[missed.length - 1].id;
    if (compareIds(last, sub.cursor) > 0) sub.cursor = last;
    // The live changes buffered meanwhile follow (deliver skips those at or before the cursor).
    sub.pending = buffered;
  }
}

function errorBody(err: unknown): { code: string; message: string } {
  const e = err as { code?: string; extensions?: { code?: string }; message?: string };
  return { code: e.extensions?.code ?? e.code ?? 'INTERNAL_SERVER_ERROR', message: e.message ?? 'Unexpected error.' };
}

export { errorBody };

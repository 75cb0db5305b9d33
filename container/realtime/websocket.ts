/** One WebSocket connection speaking Directus' realtime protocol (docs/realtime.md): `auth`, `subscribe`,
 * `unsubscribe`, `items`, `ping`/`pong`. Messages of a connection are handled one after another, in order. */
import type { WebSocket } from 'ws';
import type { Accountability } from '../../core/access/accountability.ts';
import type { RequestMeta } from '../../core/auth/authenticate.ts';
import type { ServiceContext } from '../../core/context.ts';
import { ForbiddenError, InvalidPayloadError, ServiceError } from '../../core/errors.ts';
import { itemsCollection } from '../../core/items/collection.ts';
import { readItemData, readItems } from '../../core/items/read.ts';
import {
  createItem, createItems, deleteByQuery, deleteItem, deleteItems, updateBatch, updateByQuery, updateItem, updateItems,
} from '../../core/items/write/index.ts';
import { writableCollection } from '../../core/items/write/context.ts';
import { parseLimits } from '../../core/query/limits.ts';
import { parseQuery } from '../../core/query/parse.ts';
import type { Query } from '../../core/query/types.ts';
import { errorBody, type RealtimeClient, type RealtimeHub } from '../../core/realtime/hub.ts';
import type { Services } from '../../core/services.ts';
import { accountabilityOf, describe, signIn, type Held } from './credential.ts';
import type { Connection } from './instance.ts';

type Message = Record<string, unknown>;

/** Close codes: 1008 policy (no credential in time), 1013 try again later (a slow consumer), 1001 going away. */
export const CLOSE_POLICY = 1008;
export const CLOSE_SLOW = 1013;
export const CLOSE_AWAY = 1001;

export class SocketConnection implements RealtimeClient, Connection {
  accountability: Accountability | null = null;
  #held: Held | null = null;
  #chain: Promise<void> = Promise.resolve();
  #authTimer: NodeJS.Timeout | null = null;
  #expiryTimer: NodeJS.Timeout | null = null;
  #lastSeen = Date.now();
  #closed = false;

  constructor(private readonly ws: WebSocket, private readonly services: Services, private readonly hub: RealtimeHub,
    private readonly meta: RequestMeta, initial: { accountability: Accountability; held: Held | null } | null, public readonly onClose: () => void) {
    if (initial) this.#accept(initial.accountability, initial.held);
    else this.#awaitAuth();
    ws.on('message', (data, isBinary) => {
      this.#lastSeen = Date.now();
      if (isBinary) { this.#error('INVALID_PAYLOAD', 'Messages must be JSON text.'); return; }
      const text = data.toString();
      this.#chain = this.#chain.then(() => this.#handle(text)).catch((err: unknown) => {
        console.error('realtime: handling a message failed:', err);
      });
    });
    ws.on('pong', () => { this.#lastSeen = Date.now(); });
    ws.on('close', () => this.#cleanup());
    ws.on('error', () => this.#cleanup());
  }

  get held(): Held | null {
    return this.#held;
  }

  send(message: Message, text?: string): void {
    if (this.#closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > this.services.config.realtime.maxBufferBytes) {
      // A client that stopped reading: dropping it keeps its backlog from growing and others from waiting.
      this.close(CLOSE_SLOW, 'Too far behind: reconnect and resume');
      return;
    }
    this.ws.send(text ?? JSON.stringify(message));
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#cleanup();
    try { this.ws.close(code, reason); } catch { this.ws.terminate(); }
    // A client that never answers the close handshake does not keep the socket.
    setTimeout(() => this.ws.terminate(), 5000).unref();
  }

  /** The heartbeat (WEBSOCKETS_HEARTBEAT_PERIOD): a ping, or the close of a connection silent for two periods. */
  beat(now: number): void {
    if (this.#closed) return;
    if (now - this.#lastSeen > 2 * this.services.config.realtime.heartbeatMs) {
      this.close(CLOSE_AWAY, 'No heartbeat');
      return;
    }
    this.send({ type: 'ping' });
  }

  /** Checks the held credential again (access rules changed, or a logout somewhere). */
  async recheck(sessionsOnly: boolean): Promise<void> {
    const held = this.#held;
    if (this.#closed || !this.accountability) return;
    if (sessionsOnly && (!held || !held.sessionBound)) return;
    const mode = this.services.config.realtime.authMode;
    try {
      const next = await accountabilityOf(this.services, held?.token ?? null, this.meta);
      await this.hub.regroup(this, next, () => { this.accountability = next; });
    } catch (err) {
      this.#lose('AUTH_FAILED', (err as Error).message);
      if (mode === 'public') {
        // Back to the Public role, as a connection that never authenticated.
        const anonymous = await accountabilityOf(this.services, null, this.meta).catch(() => null);
        // Nothing was delivered since the credential failed: the subscriptions are sent what they missed, as the
        // Public role may see it.
        await this.hub.regroup(this, anonymous, () => {
          this.#held = null;
          this.accountability = anonymous;
        }, { catchUp: true });
      }
    }
  }

  #cleanup(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#authTimer) clearTimeout(this.#authTimer);
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.hub.drop(this);
    this.onClose();
  }

  #awaitAuth(): void {
    if (this.#authTimer) clearTimeout(this.#authTimer);
    this.#authTimer = setTimeout(() => {
      if (this.accountability) return;
      this.send({ type: 'auth', status: 'error', error: { code: 'AUTH_TIMEOUT', message: 'Authentication timed out.' } });
      this.close(CLOSE_POLICY, 'Authentication timed out');
    }, this.services.config.realtime.authTimeoutMs);
    this.#authTimer.unref();
  }

  #accept(accountability: Accountability, held: Held | null): void {
    this.accountability = accountability;
    this.#held = held;
    if (this.#authTimer) clearTimeout(this.#authTimer);
    this.#authTimer = null;
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.#expiryTimer = null;
    if (held?.expiresAt) {
      const ms = held.expiresAt - Date.now();
      this.#expiryTimer = setTimeout(() => this.#lose('TOKEN_EXPIRED', 'Token expired.'), Math.max(0, Math.min(ms, 2 ** 31 - 1)));
      this.#expiryTimer.unref();
    }
  }

  /** The credential stopped being valid: nothing is delivered until the client authenticates again, which it must
   * do within WEBSOCKETS_AUTH_TIMEOUT (Directus' SDK does so on TOKEN_EXPIRED). */
  #lose(code: 'TOKEN_EXPIRED' | 'AUTH_FAILED', message: string): void {
    if (this.#closed) return;
    this.accountability = null;
    this.send({ type: 'auth', status: 'error', error: { code, message } });
    if (this.services.config.realtime.authMode !== 'public') this.#awaitAuth();
  }

  #error(code: string, message: string, type = 'error', uid?: unknown): void {
    this.send({ type, status: 'error', error: { code, message }, ...(uid !== undefined ? { uid } : {}) });
  }

  async #handle(text: string): Promise<void> {
    let message: Message;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      message = parsed as Message;
    } catch {
      this.#error('INVALID_PAYLOAD', 'Messages must be JSON objects.');
      return;
    }
    const type = message.type;
    const uid = message.uid;
    if (type === 'ping') { this.send({ type: 'pong', ...(uid !== undefined ? { uid } : {}) }); return; }
    if (type === 'pong') return;
    if (type === 'auth') { await this.#auth(message); return; }
    const mode = this.services.config.realtime.authMode;
    if (mode === 'strict') {
      // Every message carries its credential (or the one of the connection's URL), checked now.
      const token = typeof message.access_token === 'string' ? message.access_token : this.#held?.token ?? null;
      try {
        if (!token) throw new ForbiddenError();
        const accountability = await accountabilityOf(this.services, token, this.meta);
        const changed = !this.accountability || this.#held?.token !== token;
        if (changed) await this.hub.regroup(this, accountability, () => this.#accept(accountability, describe(token)));
        else this.#accept(accountability, describe(token));
      } catch (err) {
        this.send({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED', message: errorBody(err).message }, ...(uid !== undefined ? { uid } : {}) });
        return;
      }
    }
    if (!this.accountability) {
      this.send({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED', message: 'Authenticate first.' }, ...(uid !== undefined ? { uid } : {}) });
      return;
    }
    switch (type) {
      case 'subscribe':
        try {
          await this.hub.subscribe(this, message);
        } catch (err) {
          this.send({ type: 'subscribe', status: 'error', error: errorBody(err), ...(uid !== undefined ? { uid } : {}) });
        }
        return;
      case 'unsubscribe':
        this.hub.unsubscribe(this, uid);
        return;
      case 'items':
        try {
          const data = await this.#items(message);
          this.send({ type: 'items', status: 'ok', data, ...(uid !== undefined ? { uid } : {}) });
        } catch (err) {
          if (!(err instanceof ServiceError)) console.error('realtime: items action failed:', err);
          this.send({ type: 'items', status: 'error', error: errorBody(err), ...(uid !== undefined ? { uid } : {}) });
        }
        return;
      default:
        this.#error('INVALID_PAYLOAD', `Unknown message type "${String(type)}".`, 'error', uid);
    }
  }

  async #auth(message: Message): Promise<void> {
    const uid = message.uid;
    try {
      const { token, refreshToken } = await signIn(this.services, message, this.meta);
      const accountability = await accountabilityOf(this.services, token, this.meta);
      await this.hub.regroup(this, accountability, () => this.#accept(accountability, describe(token)));
      this.send({ type: 'auth', status: 'ok', ...(refreshToken ? { refresh_token: refreshToken } : {}), ...(uid !== undefined ? { uid } : {}) });
    } catch (err) {
      const body = errorBody(err);
      const code = body.code === 'TOKEN_EXPIRED' ? 'TOKEN_EXPIRED' : 'AUTH_FAILED';
      this.send({ type: 'auth', status: 'error', error: { code, message: body.message }, ...(uid !== undefined ? { uid } : {}) });
    }
  }

  /** `items`: CRUD over the socket through the same services as REST, under the connection's permissions. */
  async #items(message: Message): Promise<unknown> {
    const collection = message.collection;
    if (typeof collection !== 'string' || collection === '') throw new InvalidPayloadError('"collection" is required.');
    const ctx: ServiceContext = {
      db: this.services.database.db, schema: await this.services.schema.get(), accountability: this.accountability!,
      config: this.services.config, events: this.services.events,
    };
    const query: Query = message.query === undefined || message.query === null ? {}
      : parseQuery(objectOf(message.query, 'query'), parseLimits(ctx.config));
    const { id, ids, data } = message;
    const readBack = async (keys: (string | number)[]): Promise<unknown> => {
      const pk = ctx.schema.collections[collection].primary;
      if (!pk || keys.length === 0) return keys;
      try {
        const filter = { [pk]: { _in: keys } };
        const text = await readItems(ctx, collection, { ...query, filter: query.filter ? { _and: [query.filter, filter] } : filter, limit: keys.length });
        return (JSON.parse(text) as { data: unknown[] }).data;
      } catch (err) {
        // Written but not readable by the caller: the keys, as REST answers a write it may not read back.
        if (err instanceof ForbiddenError) return keys;
        throw err;
      }
    };
    switch (message.action) {
      case 'read': {
        itemsCollection(ctx, collection);
        if (id !== undefined) {
          const text = await readItemData(ctx, collection, id as string, query);
          if (text === null) throw new ForbiddenError();
          return JSON.parse(text) as unknown;
        }
        if (Array.isArray(ids)) return readBack(ids as (string | number)[]);
        return (JSON.parse(await readItems(ctx, collection, query)) as { data: unknown }).data;
      }
      case 'create': {
        writableCollection(ctx, collection);
        if (Array.isArray(data)) return readBack(await createItems(ctx, collection, data));
        const key = await createItem(ctx, collection, objectOf(data, 'data'));
        const rows = await readBack([key]);
        return Array.isArray(rows) ? rows[0] ?? key : rows;
      }
      case 'update': {
        writableCollection(ctx, collection);
        if (id !== undefined) {
          const key = await updateItem(ctx, collection, id, objectOf(data, 'data'));
          const rows = await readBack([key]);
          return Array.isArray(rows) ? rows[0] ?? key : rows;
        }
        if (Array.isArray(ids)) return readBack(await updateItems(ctx, collection, ids, objectOf(data, 'data')));
        if (Array.isArray(data)) return readBack(await updateBatch(ctx, collection, data));
        if (message.query !== undefined) return readBack(await updateByQuery(ctx, collection, query, objectOf(data, 'data')));
        throw new InvalidPayloadError('"update" needs id, ids, an array of items, or query.');
      }
      case 'delete': {
        writableCollection(ctx, collection);
        if (id !== undefined) { await deleteItem(ctx, collection, id); return id; }
        if (Array.isArray(ids)) return deleteItems(ctx, collection, ids);
        if (message.query !== undefined) return deleteByQuery(ctx, collection, query);
        throw new InvalidPayloadError('"delete" needs id, ids or query.');
      }
      default:
        throw new InvalidPayloadError('"action" must be create, read, update or delete.');
    }
  }
}

function objectOf(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidPayloadError(`"${name}" must be an object.`);
  return value as Record<string, unknown>;
}

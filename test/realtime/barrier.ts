/** A barrier for "nothing (else) arrived" assertions that holds with the Redis change log too, where a write's change
 * reaches the hub asynchronously after the REST answer (so RealtimeApp.settled() alone can resolve before the hub
 * even read it). The barrier writes a beacon row after the writes under test and waits until an admin subscriber
 * received it: the log is ordered and fanned out one batch at a time, so every earlier change has been handed to
 * the hub by then; settled() then waits for the rest of that batch, and a ping answered on each client proves that
 * everything sent to it before has arrived. */
import { run } from '../../core/db/database.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { Client, type RealtimeApp } from './helpers.ts';

export const BEACONS_SQL = `create table beacons (id serial primary key, note varchar(64));
insert into svc_collections (collection, accountability) values ('beacons', 'all');`;

export class Barrier {
  private constructor(private readonly t: RealtimeApp, private readonly admin: Client) {}

  /** Creates the beacons collection (unless `created`) and an admin subscriber to it. */
  static async create(t: RealtimeApp, opts: { created?: boolean } = {}): Promise<Barrier> {
    if (!opts.created) {
      await run(t.services.database.db, BEACONS_SQL);
      await t.services.schema.invalidate();
    }
    const admin = await Client.open(t.wsUrl);
    await admin.auth(ADMIN_TOKEN);
    const init = await admin.subscribe({ collection: 'beacons', uid: 'beacon', query: { fields: ['id'] } });
    if (init.event !== 'init') throw new Error(`beacon subscription failed: ${JSON.stringify(init)}`);
    return new Barrier(t, admin);
  }

  /** Resolves once every change committed before this call has been delivered to `clients`. */
  async pass(clients: Client[] = []): Promise<void> {
    const res = await this.t.req('POST', '/items/beacons', { note: 'barrier' });
    if (res.status !== 200) throw new Error(`beacon write failed: ${res.status} ${JSON.stringify(res.body)}`);
    const id = res.body.data.id ?? res.body.data;
    await this.admin.next((m) => m.uid === 'beacon' && m.event === 'create' && m.data.some((r: { id: number }) => r.id === id), 5000, `beacon ${id}`);
    await this.t.settled();
    await Promise.all(clients.filter((c) => !c.closed).map((c) => c.call({ type: 'ping' }, 'pong')));
  }

  close(): void {
    this.admin.close();
  }
}

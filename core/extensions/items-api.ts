/** The items services an extension handler gets, bound to the caller's accountability: the same read and write
 * services REST uses (permissions, activity, revisions, events). Inside a filter they run in the transaction of
 * the change that triggered it. */
import { systemAccountability, type Accountability } from '../access/accountability.ts';
import type { ServiceContext } from '../context.ts';
import type { PrimaryKey } from '../items/write/types.ts';
import type { ConfigPort, DatabasePort, EventsPort, SchemaPort } from '../ports.ts';
import type { ItemsApi } from './api.ts';

// The items services are imported on first use: loading the extension host (every process, every Lambda cold start)
// does not load the query compiler and the write pipeline.
const read = () => import('../items/read.ts');
const write = () => import('../items/write/index.ts');

export function itemsApi(context: () => Promise<ServiceContext>, collection: string): ItemsApi {
  return {
    async readByQuery(query = {}) {
      const { readItems } = await read();
      return JSON.parse(await readItems(await context(), collection, query)).data;
    },
    async readOne(key, query = {}) {
      const { readItemData } = await read();
      const text = await readItemData(await context(), collection, key, query);
      return text === null ? null : JSON.parse(text);
    },
    async createOne(data) {
      const { createItem } = await write();
      return createItem(await context(), collection, data);
    },
    async updateOne(key, data) {
      const { updateItem } = await write();
      return updateItem(await context(), collection, key, data);
    },
    async deleteOne(key: PrimaryKey) {
      const { deleteItem } = await write();
      await deleteItem(await context(), collection, key);
    },
  };
}

/** A context outside any request (actions, schedules): the current schema, the root executor, the event's caller
 * (null: system, permissions bypassed). */
export function detachedContext(services: ConfigPort & DatabasePort & EventsPort & SchemaPort, accountability: Accountability | null): () => Promise<ServiceContext> {
  return async () => ({
    db: services.database.db,
    schema: await services.schema.get(),
    accountability: accountability ?? systemAccountability(),
    config: services.config,
    events: services.events,
  });
}

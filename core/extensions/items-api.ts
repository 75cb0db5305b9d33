/** The items services an extension handler gets, bound to the caller's accountability: the same read and write
 * services REST uses (permissions, activity, revisions, events). Inside a filter they run in the transaction of
 * the change that triggered it. */
import { systemAccountability, type Accountability } from '../access/accountability.ts';
import type { ServiceContext } from '../context.ts';
import { readItemData, readItems } from '../items/read.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import type { PrimaryKey } from '../items/write/types.ts';
import type { Services } from '../services.ts';
import type { ItemsApi } from './api.ts';

export function itemsApi(context: () => Promise<ServiceContext>, collection: string): ItemsApi {
  return {
    async readByQuery(query = {}) {
      return JSON.parse(await readItems(await context(), collection, query)).data;
    },
    async readOne(key, query = {}) {
      const text = await readItemData(await context(), collection, key, query);
      return text === null ? null : JSON.parse(text);
    },
    async createOne(data) {
      return createItem(await context(), collection, data);
    },
    async updateOne(key, data) {
      return updateItem(await context(), collection, key, data);
    },
    async deleteOne(key: PrimaryKey) {
      await deleteItem(await context(), collection, key);
    },
  };
}

/** A context outside any request (actions, schedules): the current schema, the root executor, the event's caller
 * (null: system, permissions bypassed). */
export function detachedContext(services: Services, accountability: Accountability | null): () => Promise<ServiceContext> {
  return async () => ({
    db: services.database.db,
    schema: await services.schema.get(),
    accountability: accountability ?? systemAccountability(),
    config: services.config,
    events: services.events,
  });
}

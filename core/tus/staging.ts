/** Where incomplete resumable uploads are staged, one set per process (Services): @tus/file-store under
 * `{STORAGE_LOCAL_ROOT}/.tus` for local providers, the provider's bucket for objectstore ones (ProviderStores).
 * Shared by the tus endpoint (container/tus.ts) and the cleanup job (core/tus/cleanup.ts). */
import { join } from 'node:path';
import { FileStore } from '@tus/file-store';
import type { ConfigPort, DatabasePort, SchemaPort } from '../ports.ts';
import type { StoragePort } from '../storage/registry.ts';
import { ProviderStores, rowPartLog } from './stores.ts';

export interface TusStaging {
  directory: string;
  staging: FileStore;
  store: ProviderStores;
}

// Keyed by the services object the caller passes (the whole Services in practice): one staging per process.
const stagings = new WeakMap<object, TusStaging>();

export function tusStaging(services: ConfigPort & DatabasePort & SchemaPort & StoragePort): TusStaging {
  let s = stagings.get(services);
  if (!s) {
    const directory = join(services.config.files.storageLocalRoot, '.tus');
    const staging = new FileStore({ directory });
    s = { directory, staging, store: new ProviderStores(services, staging, rowPartLog(services)) };
    stagings.set(services, s);
  }
  return s;
}

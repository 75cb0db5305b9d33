/** The storage providers a process can use: the records of svc_extension_settings with extension_key
 * `system_storage_provider`, each a driver built from its (decrypted) configuration, plus the built-in `local`
 * driver on STORAGE_LOCAL_ROOT, which always exists as a fallback (a record named `local` replaces its root).
 * Loaded per schema version: a provider change bumps the version, so every process reloads on its next request. */
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { listSettings, settingValue } from '../extensions/settings-table.ts';
import type { StorageDriver } from './driver.ts';
import { LocalDriver } from './local.ts';
import { ObjectstoreDriver } from './objectstore.ts';
import { openConfig, validateProviderConfig, type ProviderConfig } from './provider-config.ts';

export const STORAGE_PROVIDER_KEY = 'system_storage_provider';
export const BUILT_IN_LOCAL = 'local';

export interface StorageProviders {
  /** Provider names, the default (first configured) first. */
  names: string[];
  /** The provider new uploads go to when they name none. */
  defaultName: string;
  get(name: string): StorageDriver;
  has(name: string): boolean;
}

export function driverFor(config: ProviderConfig): StorageDriver {
  return config.driver === 'local' ? new LocalDriver(config.root) : new ObjectstoreDriver(config);
}

class LoadedProviders implements StorageProviders {
  constructor(readonly names: string[], readonly defaultName: string, private readonly drivers: Map<string, StorageDriver>) {}

  has(name: string): boolean {
    return this.drivers.has(name);
  }

  get(name: string): StorageDriver {
    const d = this.drivers.get(name);
    // A file whose provider was deleted (or misconfigured) can't be served: a clear error, not a crash.
    if (!d) throw new ServiceUnavailableError(`Storage provider "${name}" is not configured.`);
    return d;
  }
}

/** The storage providers, as a function names them instead of the whole Services (core/ports.ts sits below storage). */
export interface StoragePort {
  storage: StorageRegistry;
}

export class StorageRegistry {
  #loaded: { version: string; providers: Promise<StorageProviders> } | null = null;

  constructor(private readonly db: Kysely<any>, private readonly config: Config) {}

  /** The providers for a schema version (the request's). */
  providers(version: string): Promise<StorageProviders> {
    if (this.#loaded?.version !== version) {
      const providers = this.#load();
      this.#loaded = { version, providers };
      providers.catch(() => { if (this.#loaded?.providers === providers) this.#loaded = null; });
    }
    return this.#loaded.providers;
  }

  async #load(): Promise<StorageProviders> {
    const drivers = new Map<string, StorageDriver>();
    const names: string[] = [];
    for (const row of await listSettings(this.db, STORAGE_PROVIDER_KEY)) {
      if (row.name === null) continue;
      try {
        drivers.set(row.name, driverFor(validateProviderConfig(openConfig(settingValue(row.value), this.config.secret), this.config.files.storageLocalRoot)));
        names.push(row.name);
      } catch (err) {
        // One broken record (e.g. written under another SECRET) must not take the others down.
        if (this.config.logLevel !== 'silent') console.error(`Storage provider "${row.name}" could not be loaded:`, (err as Error).message);
      }
    }
    if (!drivers.has(BUILT_IN_LOCAL)) {
      drivers.set(BUILT_IN_LOCAL, new LocalDriver(this.config.files.storageLocalRoot));
      names.push(BUILT_IN_LOCAL);
    }
    return new LoadedProviders(names, names[0], drivers);
  }
}

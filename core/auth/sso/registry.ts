/** The external sign-on providers a process can use: those of the environment (Config.authProviders) and the
 * records of svc_extension_settings with extension_key `system_auth_provider` (secrets decrypted). Loaded per
 * schema version, as the storage providers are (core/storage/registry.ts): a provider change bumps the version, so
 * every process (and every Lambda) reloads on its next request; nothing lives only in one process's memory. */
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import { listSettings, settingValue } from '../../extensions/settings-table.ts';
import { parseProviderRecord } from './config.ts';
import { openProviderValue } from './provider-secrets.ts';
import { AUTH_PROVIDER_KEY, type PublicProvider, type SsoProviderConfig } from './types.ts';

export interface LoadedSsoProviders {
  /** Environment providers first, then records, in id order. */
  list(): SsoProviderConfig[];
  get(name: string): SsoProviderConfig | undefined;
  /** A per-load cache for what a driver derives from a provider (an OpenID discovery): dropped with the load. */
  memo<T>(name: string, make: () => Promise<T>): Promise<T>;
}

export function publicProvider(p: SsoProviderConfig): PublicProvider {
  return { name: p.name, driver: p.driver, label: p.label, icon: p.icon };
}

class Loaded implements LoadedSsoProviders {
  readonly #memo = new Map<string, Promise<unknown>>();
  constructor(private readonly providers: Map<string, SsoProviderConfig>) {}
  list() { return [...this.providers.values()]; }
  get(name: string) { return this.providers.get(name); }
  memo<T>(name: string, make: () => Promise<T>): Promise<T> {
    let p = this.#memo.get(name) as Promise<T> | undefined;
    if (!p) {
      const made = make();
      p = made;
      this.#memo.set(name, made);
      // A failed discovery is retried by the next sign-in, not cached.
      made.catch(() => { if (this.#memo.get(name) === made) this.#memo.delete(name); });
    }
    return p;
  }
}

/** The registry, as a function names it instead of the whole Services. */
export interface SsoPort {
  sso: AuthProviderRegistry;
}

export class AuthProviderRegistry {
  #loaded: { version: string; providers: Promise<LoadedSsoProviders> } | null = null;

  constructor(private readonly db: Kysely<any>, private readonly config: Config) {}

  providers(version: string): Promise<LoadedSsoProviders> {
    if (this.#loaded?.version !== version) {
      const providers = this.#load();
      this.#loaded = { version, providers };
      providers.catch(() => { if (this.#loaded?.providers === providers) this.#loaded = null; });
    }
    return this.#loaded.providers;
  }

  async #load(): Promise<LoadedSsoProviders> {
    const map = new Map<string, SsoProviderConfig>();
    for (const p of this.config.authProviders) map.set(p.name, p);
    for (const row of await listSettings(this.db, AUTH_PROVIDER_KEY)) {
      // The API refuses these; a record written around it must not shadow an environment provider.
      if (row.name === null || map.has(row.name) || row.name === 'default') continue;
      try {
        map.set(row.name, parseProviderRecord(row.name, openProviderValue(settingValue(row.value), this.config.secret)));
      } catch (err) {
        // One broken record (e.g. written under another SECRET) must not take the others down.
        if (this.config.logLevel !== 'silent') console.error(`Auth provider "${row.name}" could not be loaded:`, (err as Error).message);
      }
    }
    return new Loaded(map);
  }
}

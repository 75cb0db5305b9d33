/** SECRET persistence for standalone mode: without SECRET and without DATABASE_URL, the signing secret is
 * read from (or created once in) `${DATA_DIR}/secret`, mode 0600, so tokens survive restarts. */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';

export const SECRET_FILE = 'secret';

/** Reads the secret file, creating it when missing. The new file is written in full under a temporary
 * name and hard-linked into place (fails when it exists), so concurrent starts agree on one complete value. */
export function readOrCreateSecretFile(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, SECRET_FILE);
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${path} holds no usable secret (expected at least 32 characters); delete it or set SECRET.`);
  try {
    chmodSync(path, 0o600);
  } catch {
    // Best effort: a read-only or foreign-owned file still works.
  }
  return secret;
}

/** A config whose secret survives restarts when it can: unchanged when SECRET is set or a database server
 * is used (several instances must share an explicit SECRET; a per-host file would split them). */
export function withPersistentSecret(config: Config): Config {
  if (!config.secretGenerated || config.databaseUrl) return config;
  return { ...config, secret: readOrCreateSecretFile(config.dataDir), secretGenerated: false };
}

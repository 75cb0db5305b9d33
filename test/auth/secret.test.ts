/** SECRET persistence for standalone mode (core/auth/secret.ts). */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { withPersistentSecret } from '../../core/auth/secret.ts';

const dirs: string[] = [];
function dataDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-secret-')), 'data');
  dirs.push(dir);
  return dir;
}
afterEach(() => { for (const d of dirs.splice(0)) rmSync(join(d, '..'), { recursive: true, force: true }); });

describe('withPersistentSecret', () => {
  it('creates DATA_DIR/secret (mode 0600) once and reuses it on the next start', () => {
    const dir = dataDir();
    const first = withPersistentSecret(loadConfig({ DATA_DIR: dir }));
    expect(first.secretGenerated).toBe(false);
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/);
    const file = join(dir, 'secret');
    expect(readFileSync(file, 'utf8')).toBe(first.secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['secret']);
    const second = withPersistentSecret(loadConfig({ DATA_DIR: dir }));
    expect(second.secret).toBe(first.secret);
  });

  it('leaves an explicit SECRET alone and writes nothing', () => {
    const dir = dataDir();
    const config = loadConfig({ DATA_DIR: dir, SECRET: 'explicit-secret' });
    expect(withPersistentSecret(config)).toBe(config);
    expect(existsSync(join(dir, 'secret'))).toBe(false);
  });

  it('does not persist when a database server is used (instances must share an explicit SECRET)', () => {
    const dir = dataDir();
    const config = loadConfig({ DATA_DIR: dir, DATABASE_URL: 'postgres://localhost/x' });
    expect(withPersistentSecret(config)).toBe(config);
    expect(existsSync(join(dir, 'secret'))).toBe(false);
  });

  it('refuses an empty or short secret file instead of signing with it', () => {
    const dir = dataDir();
    withPersistentSecret(loadConfig({ DATA_DIR: dir }));
    writeFileSync(join(dir, 'secret'), 'short');
    expect(() => withPersistentSecret(loadConfig({ DATA_DIR: dir }))).toThrow(/no usable secret/);
  });
});

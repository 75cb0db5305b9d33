/** `npm start` (scripts/start.mjs): compiles the sources to dist/ when dist/ is not current, then serves from it in
 * the same process, the Studio at /admin included; a second start with nothing changed compiles nothing. Runs in the embedded-database pass only
 * (what it tests is the start script, not the database). */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';

const root = join(import.meta.dirname, '..', '..');
const stamp = join(root, 'dist', '.compiled');

/** Starts the script, waits for /server/health, reads /admin/ (the Studio), stops it with SIGTERM; returns its
 * output, exit code and the Studio's answer. */
async function startOnce(dataDir: string): Promise<{ output: string; code: number | null; studio: { status: number; html: string } }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', ADMIN_EMAIL: 'start@example.com', ADMIN_PASSWORD: 'start-script-pass' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 150_000;
  let healthy = false;
  while (!healthy && Date.now() < deadline && child.exitCode === null) {
    healthy = await fetch(`http://127.0.0.1:${port}/server/health`).then((r) => r.status === 200, () => false);
    if (!healthy) await new Promise((r) => setTimeout(r, 250));
  }
  const studio = healthy
    ? await fetch(`http://127.0.0.1:${port}/admin/`).then(async (r) => ({ status: r.status, html: await r.text() }), () => ({ status: 0, html: '' }))
    : { status: 0, html: '' };
  child.kill('SIGTERM');
  const code = await exited;
  if (!healthy) throw new Error(`the server did not answer: ${output}`);
  return { output, code, studio };
}

describe.skipIf(!!process.env.TEST_DATABASE_URL)('scripts/start.mjs', () => {
  it('compiles a dist/ that is not current, serves from it, and compiles nothing the next time', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-start-'));
    try {
      rmSync(stamp, { force: true });
      const first = await startOnce(dataDir);
      expect(first.output).toMatch(/Compiling the sources to dist\//);
      expect(first.output).toMatch(/svc standalone listening/);
      expect(first.code).toBe(0);
      expect(existsSync(join(root, 'dist', 'container', 'main.js'))).toBe(true);
      // The compiled server finds the Studio's build beside the sources (not under dist/).
      expect(first.studio.status).toBe(200);
      expect(first.studio.html).toContain('<div id="root"></div>');
      const compiledAt = statSync(stamp).mtimeMs;

      const second = await startOnce(dataDir);
      expect(second.output).not.toMatch(/Compiling/);
      expect(second.output).toMatch(/svc standalone listening/);
      expect(statSync(stamp).mtimeMs).toBe(compiledAt);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});

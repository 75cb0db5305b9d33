/** The README's five-minute tour, run as written against a real server: the test starts the server as the tour
 * says (a new database, `ADMIN_EMAIL`/`ADMIN_PASSWORD` taken from the README's start command), takes the ```bash
 * block under "## A five-minute tour", runs it with bash (`set -euo pipefail`; its commands use `curl -fsS`, so
 * any failing command fails the test) and checks that what it prints matches, in order, every `# =>` line the
 * README shows. The only edit to the block is the port in `B=`.
 *
 * The server runs from the sources (`node --import tsx container/main.ts`, what `npm start` runs once compiled):
 * compiling dist/ here would race with test/server/start-script.test.ts, which deletes and rebuilds dist/. It uses the
 * embedded PGlite in a temporary DATA_DIR; with TEST_DATABASE_URL it gets a new, empty database on that server
 * through DATABASE_URL instead (as `DATABASE_URL=... npm start` in the README). The pressure limiter is off as in
 * every test: a loaded test machine must not shed the tour's requests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { withDatabase } from '../helpers/template.ts';

const root = join(import.meta.dirname, '..', '..');
const README_URL = 'http://127.0.0.1:8055';

/** The ```bash block right after the "## A five-minute tour" heading (before the next section). */
export function tourBlock(markdown: string): string {
  const section = /^## A five-minute tour\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown);
  if (!section) throw new Error('README.md has no "## A five-minute tour" section');
  const block = /^```bash\n([\s\S]*?)^```$/m.exec(section[1]!);
  if (!block) throw new Error('the tour section has no ```bash block');
  return block[1]!;
}

/** The outputs the tour shows: every `# => ` line, in order. */
export function expectedOutputs(block: string): string[] {
  return [...block.matchAll(/^# => (.*)$/gm)].map((m) => m[1]!);
}

const squeeze = (text: string) => text.replace(/\s+/g, '');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Finds each expected output in `output`, in order (whitespace ignored, `...` matching anything); answers the
 * first one that is not there, or null when all are. */
export function firstMissing(output: string, expected: string[]): string | null {
  const text = squeeze(output);
  let from = 0;
  for (const line of expected) {
    const pattern = new RegExp(squeeze(line).split('...').map(escape).join('.*?'), 'g');
    pattern.lastIndex = from;
    const found = pattern.exec(text);
    if (!found) return line;
    from = found.index + found[0].length;
  }
  return null;
}

describe('the tour checker', () => {
  it('finds the expected outputs in order, ignores whitespace, and reads ... as anything', () => {
    const output = 'authors\nposts\n{"data":[1, 2]}{"errors":[{"message":"No.","extensions":{"code":"FORBIDDEN"}}]}';
    expect(firstMissing(output, ['authors', 'posts', '{"data":[1,2]}', '{"errors":[{"message":"...","extensions":{"code":"FORBIDDEN"}}]}'])).toBeNull();
    expect(firstMissing(output, ['posts', 'authors'])).toBe('authors');
    expect(firstMissing(output, ['{"data":[1,3]}'])).toBe('{"data":[1,3]}');
    expect(firstMissing(output, ['{"errors":[{"message":"...","extensions":{"code":"INVALID_QUERY"}}]}'])).not.toBeNull();
  });

  it('reads the README: a bash block with commands and expected outputs', () => {
    const block = tourBlock(readFileSync(join(root, 'README.md'), 'utf8'));
    expect(block).toContain(`B=${README_URL}\n`);
    expect(expectedOutputs(block).length).toBeGreaterThan(5);
  });
});

/** Starts the server; resolves once /server/health answers 200. */
async function startServer(env: Record<string, string>, port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'container/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const deadline = Date.now() + 100_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const healthy = await fetch(`http://127.0.0.1:${port}/server/health`).then((r) => r.status === 200, () => false);
    if (healthy) return { child, output: () => output };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not start: ${output}`);
}

function runBash(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

describe('README > A five-minute tour', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const pgUrl = process.env.TEST_DATABASE_URL;
  const dbName = `svc_readme_tour_${process.pid}`;
  let dir = '';
  let port = 0;
  let server: { child: ChildProcess; output: () => string } | undefined;

  beforeAll(async () => {
    const start = /^ADMIN_EMAIL=(\S+) ADMIN_PASSWORD=(\S+) npm start$/m.exec(readme);
    if (!start) throw new Error('the README shows no `ADMIN_EMAIL=... ADMIN_PASSWORD=... npm start` line');
    dir = mkdtempSync(join(tmpdir(), 'svc-readme-tour-'));
    port = await freePort();
    let databaseUrl = '';
    if (pgUrl) {
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${dbName}`);
      await admin.query(`create database ${dbName}`);
      await admin.end();
      databaseUrl = withDatabase(pgUrl, dbName);
    }
    server = await startServer({
      PATH: process.env.PATH ?? '',
      HOME: dir,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: join(dir, 'data'),
      STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
      EXTENSIONS_PATH: join(dir, 'extensions'),
      DATABASE_URL: databaseUrl,
      ADMIN_EMAIL: start[1]!,
      ADMIN_PASSWORD: start[2]!,
      LOG_LEVEL: 'warn',
      PRESSURE_LIMITER_ENABLED: 'false',
    }, port);
  }, 120_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      const exited = new Promise((resolve) => server!.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
    if (pgUrl) {
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${dbName}`);
      await admin.end();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs every command of the tour and prints what the README shows', async () => {
    const block = tourBlock(readme);
    const script = `set -euo pipefail\n${block.replace(`B=${README_URL}\n`, `B=http://127.0.0.1:${port}\n`)}`;
    const result = await runBash(script, dir);
    const report = `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}\nserver:\n${server?.output()}`;
    expect(result.code, report).toBe(0);
    expect(firstMissing(result.stdout, expectedOutputs(block)), report).toBeNull();
  }, 60_000);
});

/** Starting and stopping the two servers under test as real listening processes, with their output in a log
 * file (shown on failure). */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledReference, SERVER_NODE_FLAGS } from './compiled.ts';

export interface ServerProcess {
  name: string;
  baseUrl: string;
  child: ChildProcess;
  logFile: string;
  stop(): Promise<void>;
}

export function logTail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Spawns a server and waits until GET {baseUrl}/server/health answers 200. `container/main.ts` runs as `npm start`
 * runs it (scripts/start.mjs: the compiled dist/, compiled first when stale); another script (a raw reference
 * server) runs transpiled to JavaScript (./compiled.ts); both with the same Node flags. */
export async function startServer(opts: {
  name: string;
  cwd: string;
  script: string;
  port: number;
  env: Record<string, string>;
  readyTimeoutMs?: number;
}): Promise<ServerProcess> {
  const logFile = join(tmpdir(), `svc-bench-${opts.name}-${process.pid}.log`);
  const log = createWriteStream(logFile);
  const entry = opts.script === 'container/main.ts' ? 'scripts/start.mjs' : compiledReference(opts.cwd, opts.script);
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, entry], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env, PORT: String(opts.port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const baseUrl = `http://127.0.0.1:${opts.port}`;

  const server: ServerProcess = {
    name: opts.name,
    baseUrl,
    child,
    logFile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited(child);
      clearTimeout(timer);
    },
  };

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${opts.name} exited (code ${child.exitCode ?? child.signalCode}) before it was ready. Log ${logFile}:\n${logTail(logFile)}`);
    }
    try {
      const res = await fetch(`${baseUrl}/server/health`);
      if (res.status === 200) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await server.stop();
  throw new Error(`${opts.name} did not answer /server/health within ${(opts.readyTimeoutMs ?? 120_000) / 1000} s. Log ${logFile}:\n${logTail(logFile)}`);
}

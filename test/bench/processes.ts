/** Starting and stopping the two servers under test as real listening processes, with their output in a log
 * file (shown on failure). */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/** Spawns `node --import tsx <script>` in `cwd` and waits until GET {baseUrl}/server/health answers 200. */
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
  const child = spawn(process.execPath, ['--import', 'tsx', opts.script], {
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

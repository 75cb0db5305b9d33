/** `npm start`: standalone by default (whole API, embedded PGlite under ./data); SVC_MODE=container serves
 * only the container half and SVC_MODE=functions only the functions half (the split topology). */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { loadConfig } from '../core/config.ts';
import { withPersistentSecret } from '../core/auth/secret.ts';
import { createServices } from '../core/services.ts';
import { createFunctionsApp } from '../functions/app.ts';
import { createLazyContainerApp, createLazyStandaloneApp } from './lazy-app.ts';
import { startTusCleanup } from '../core/tus/cleanup.ts';
import { startWorkflowTimeouts } from '../core/workflow/timeouts.ts';
import { startPublishSchedules } from '../core/publishing/runner.ts';
import { loadExtensions } from '../core/extensions/host.ts';
import { HttpDrain, httpServerOptions } from './drain.ts';
import { startControlSocket } from './control-socket.ts';

// Standalone without SECRET: the signing secret persists under DATA_DIR so tokens survive restarts.
const config = withPersistentSecret(loadConfig());
const mode = process.env.SVC_MODE ?? 'standalone';
if (!['standalone', 'container', 'functions'].includes(mode)) throw new Error('SVC_MODE must be standalone, container or functions');

const services = await createServices(config, {
  onBootstrap: (result) => {
    if (result.created && result.generatedPassword) {
      console.log(`First start: created admin ${result.adminEmail} with password ${result.generatedPassword}`);
      console.log('Change it after your first login; it is not shown again.');
    } else if (result.created) {
      console.log(`First start: created admin ${result.adminEmail}`);
    }
  },
});
if (config.secretGenerated) {
  console.warn('SECRET is not set while DATABASE_URL is: a random one is used, so tokens do not survive a restart'
    + ' and other instances reject them. Set SECRET.');
}

// Extensions load once, before the app is built (EXTENSIONS_PATH; EXTENSIONS_MUST_LOAD stops the start here).
const extensions = await loadExtensions(services);
// Route groups are imported by the first request that reaches them, so the process holds only the code (and the
// libraries: GraphQL, tus, the S3 SDK, ...) its requests use.
const app = mode === 'container' ? createLazyContainerApp(services, extensions)
  : mode === 'functions' ? createFunctionsApp(services, extensions, { preloadRoutes: false })
    : createLazyStandaloneApp(services, extensions);
// The embedded engine: backups of the running server are asked for on ${DATA_DIR}/control.sock (npm run backup).
const stopControlSocket = await startControlSocket(services, (message) => console.warn(message));
// Socket timeouts (HTTP_*) bound slow and idle clients; the drain (SHUTDOWN_TIMEOUT) runs on SIGTERM/SIGINT.
const drain = new HttpDrain(config.http);
const attachRealtime = mode === 'functions' || !config.realtime.enabled ? null : (await import('./realtime/server.ts')).attachRealtime;
const server = serve({
  fetch: drain.guard(app.fetch), hostname: config.host, port: config.port, serverOptions: httpServerOptions(config.http),
}, (info) => {
  console.log(`svc ${mode} listening on http://${info.address}:${info.port} (${services.database.kind})`);
});
drain.attach(server as Server);
// /websocket (Directus' realtime protocol) where subscribers are served: the container half and standalone. Attached
// in the same tick as serve() (its module imported before), so no upgrade reaches the server before it.
const realtimeServer = attachRealtime ? attachRealtime(server as Server, services) : null;

// Action events and notify wake-ups are consumed where the extension host and the notify worker run: the
// container, or standalone (the in-process queue starts both itself; standalone on SQS starts them here). The
// functions half only sends, and leaves what it could not send in the outbox for the container's relay.
if (mode !== 'functions') {
  services.consumeEvents();
  services.notify.start();
  // Action events their writer (a function, or a process that died) did not send: core/events/relay.ts.
  services.relay.start();
}

// Expired resumable uploads are removed by the process that serves /tus (TUS_CLEANUP_SCHEDULE).
const stopTusCleanup = mode === 'functions' ? () => {} : startTusCleanup(services);
// Extension schedules run where action hooks run.
const stopSchedules = mode === 'functions' ? () => {} : extensions.startSchedules();
// Workflow step timeouts: rows claimed with SKIP LOCKED, so several containers may scan at once.
const stopWorkflowTimeouts = mode === 'functions' ? () => {} : startWorkflowTimeouts(services, config.workflowTimeoutIntervalMs);
// Scheduled publishing: due rows claimed with SKIP LOCKED and marked in the run's transaction (exactly once across
// containers); a row that fell due while every process was down runs at the first scan.
const stopPublishSchedules = mode === 'functions' ? async () => {} : startPublishSchedules(services, config.publishScheduleIntervalMs);

/** Stops the periodic jobs, drains HTTP (new connections refused, in-flight requests finish up to
 * SHUTDOWN_TIMEOUT), then closes the queue consumer, the pool and the Redis client. A second signal, or cleanup
 * hanging past the deadline, ends the process at once. */
async function shutdown(signal: string) {
  if (drain.draining) {
    console.error(`${signal} again: exiting without waiting`);
    process.exit(1);
  }
  const timeoutMs = config.http.shutdownTimeoutMs;
  setTimeout(() => {
    console.error('shutdown did not finish in time: exiting');
    process.exit(1);
  }, timeoutMs + 10_000).unref();
  console.log(`${signal}: draining (up to ${timeoutMs} ms)`);
  stopTusCleanup();
  stopSchedules();
  stopWorkflowTimeouts();
  await stopPublishSchedules();
  await stopControlSocket();
  // Sockets are told to go (1001) first: their clients reconnect to another instance and resume.
  await realtimeServer?.close();
  const cut = await drain.drain(timeoutMs);
  if (cut > 0) console.error(`shutdown deadline: ${cut} request(s) were cut`);
  try {
    await services.close();
  } catch (err) {
    console.error('shutdown: closing services failed:', (err as Error).message);
    process.exit(1);
  }
  console.log('shutdown complete');
  process.exit(0);
}
process.on('SIGINT', () => { void shutdown('SIGINT'); });
process.on('SIGTERM', () => { void shutdown('SIGTERM'); });

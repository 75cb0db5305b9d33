/** A worker process for the crash test (test/notify/outbox-race.test.ts): services on DATABASE_URL with the
 * in-process queue, so its notify worker starts and scans at once. It prints `ready` and runs until killed. */
import { loadConfig } from '../../core/config.ts';
import { createServices } from '../../core/services.ts';

const services = await createServices(loadConfig(process.env), { skipMigrations: true });
process.stdout.write(`ready ${services.notify.id}\n`);
setInterval(() => {}, 1 << 30);

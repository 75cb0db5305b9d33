/** A sender process for the notify bench rows (test/bench/notify.ts), driven by lines on stdin:
 *
 *   worker mode (`notify-child.ts worker`, env as for the server: DATABASE_URL, EMAIL_SMTP_*, ...): services on
 *     DATABASE_URL with the in-process queue, so only the notify worker runs (as container/main.ts starts it; no
 *     HTTP server). `wake` wakes it; `idle` answers `idle` once nothing is in flight and every outcome is written.
 *     While its sent count changes it prints `sent <total>` (checked every 5 ms).
 *   direct mode (`notify-child.ts direct <smtp port> <concurrency>`): one pooled nodemailer transport with
 *     <concurrency> connections; `send <count> <first index>` sends that many messages, <concurrency> in flight,
 *     and answers `done`.
 *
 * Both print `ready` once set up. */
import { createInterface } from 'node:readline';
import nodemailer from 'nodemailer';
import { loadConfig } from '../../core/config.ts';
import { htmlToText } from '../../core/notify/channels/text.ts';
import { createServices } from '../../core/services.ts';
import { benchHtml } from './notify-html.ts';


const say = (line: string) => process.stdout.write(line + '\n');
const lines = createInterface({ input: process.stdin });

if (process.argv[2] === 'worker') {
  const services = await createServices(loadConfig(process.env), { skipMigrations: true });
  let reported = -1;
  const timer = setInterval(() => { if (services.notify.sent !== reported) say(`sent ${(reported = services.notify.sent)}`); }, 5);
  lines.on('line', (line) => {
    if (line === 'wake') services.notify.wake();
    else if (line === 'idle') void services.notify.idle().then(() => say(`sent ${(reported = services.notify.sent)}`)).then(() => say('idle'));
  });
  lines.on('close', () => { clearInterval(timer); void services.close().then(() => process.exit(0)); });
  say('ready');
} else if (process.argv[2] === 'direct') {
  const port = Number(process.argv[3]);
  const concurrency = Number(process.argv[4]);
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, pool: true, maxConnections: concurrency, maxMessages: Infinity });
  const send = (i: number) => transport.sendMail({ from: 'bench@example.com', to: `d${i}@example.com`, subject: `Order ${i}`, html: benchHtml(i), text: htmlToText(benchHtml(i)) });
  lines.on('line', (line) => {
    const [cmd, a, b] = line.split(' ');
    if (cmd !== 'send') return;
    const count = Number(a);
    let next = Number(b);
    const end = next + count;
    void Promise.all(Array.from({ length: concurrency }, async () => { while (next < end) await send(next++); })).then(() => say('done'), (err: unknown) => {
      console.error(`direct send failed: ${(err as Error).message}`);
      process.exit(1);
    });
  });
  lines.on('close', () => { transport.close(); process.exit(0); });
  say('ready');
} else {
  console.error('usage: notify-child.ts worker | direct <port> <concurrency>');
  process.exit(2);
}

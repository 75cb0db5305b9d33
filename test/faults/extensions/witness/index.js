// Fault-suite witness: with EVENT_WITNESS_FILE set, every run of its items.create / items.update action hook appends
// one line (event, collection, keys, event id, process id) to that file before returning, so a test can count the
// runs of each committed change's hook across killed and restarted processes. Without it, it registers nothing (the
// other fault tests load this folder too).
import { appendFileSync } from 'node:fs';

export default ({ action }) => {
  const file = process.env.EVENT_WITNESS_FILE;
  if (!file) return;
  for (const event of ['items.create', 'items.update']) {
    action(event, (meta, { eventId }) => {
      appendFileSync(file, `${JSON.stringify({ event, collection: meta.collection, keys: meta.keys, eventId, pid: process.pid })}\n`);
    });
  }
};

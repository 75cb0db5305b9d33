/** Child of pressure.test.ts: runs a PressureMonitor (20 ms samples, 100 ms max delay, the utilisation limit on at
 * 0.99, as it was by default, so a pause is shown not to count as utilisation either), prints `ready`, and
 * once it notices it was stopped (SIGSTOP/SIGCONT by the parent: a gap of more than 300 ms between its 5 ms
 * polls), watches the verdict for 300 ms more and prints it as JSON. With BUSY=1 it blocks its own loop for
 * 500 ms instead of waiting to be stopped (the control: a busy loop must count as overload). */
import { PressureMonitor } from '../../core/pressure/monitor.ts';
import { loadConfig } from '../../core/config.ts';
import { testEnv } from '../helpers/template.ts';

const { pressure } = loadConfig(testEnv({
  PRESSURE_LIMITER_ENABLED: 'true', PRESSURE_LIMITER_SAMPLE_INTERVAL: '20', PRESSURE_LIMITER_MAX_EVENT_LOOP_DELAY: '100',
  PRESSURE_LIMITER_MAX_EVENT_LOOP_UTILIZATION: '0.99',
}));
const monitor = new PressureMonitor(pressure).start();
const reasons = new Set<string>();
let last = performance.now();
let resumedAt = 0;
let ticks = 0;
const poll = setInterval(() => {
  const now = performance.now();
  if (!resumedAt && now - last > 300) resumedAt = now;
  last = now;
  const reason = monitor.reason();
  if (resumedAt && reason) reasons.add(reason);
  if (++ticks === 40) {
    console.log('ready');
    if (process.env.BUSY === '1') {
      const until = performance.now() + 500;
      while (performance.now() < until) { /* block */ }
    }
  }
  if (resumedAt && now - resumedAt > 300) {
    clearInterval(poll);
    monitor.stop();
    console.log(JSON.stringify({ reasons: [...reasons] }));
  }
}, 5);

/** The load sampler behind the pressure limiter (PRESSURE_LIMITER_*). Every sampleIntervalMs (an unref'd timer,
 * stopped by Services.close) it reads:
 * - the event-loop delay: the p99 of perf_hooks.monitorEventLoopDelay over the interval (reset each time), or how
 *   late this very timer fired, whichever is larger (a loop blocked by one long task shows up in either);
 * - the event-loop utilisation over the interval (performance.eventLoopUtilization);
 * - heapUsed and rss (process.memoryUsage).
 * The verdict is stored, so `overloaded()` is a field read per request.
 *
 * A suspended process (a frozen Lambda instance, a paused container, SIGSTOP) comes back with a huge timer delay
 * although it did not run: an interval more than 4 intervals long in which the process used under 10% of one
 * CPU (process.cpuUsage) is a pause, not a blocked loop, and its delay is ignored, or every thawed instance would
 * refuse its next requests (its utilisation is ignored too). The delay histogram's own timer may record the pause just after that tick, so its
 * next reading is ignored too.
 *
 * Loading code (a route group imported by its first request) blocks the loop once for a few hundred ms; that is
 * start-up work done late, not load: excuseLoading() has the sampler ignore the delay and utilisation of the
 * interval it falls in and of the next one (the block may span a tick). */
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { PressureConfig } from '../config.ts';
import { exceededLimit, type PressureReason, type PressureSample } from './thresholds.ts';

export class PressureMonitor {
  readonly #config: PressureConfig;
  #timer: NodeJS.Timeout | null = null;
  #histogram: IntervalHistogram | null = null;
  #elu: EventLoopUtilization | null = null;
  #lastTick = 0;
  #lastCpu: NodeJS.CpuUsage | null = null;
  #ignoreHistogram = false;
  #excusedTicks = 0;
  #reason: PressureReason | null = null;
  #sample: PressureSample = { eventLoopDelayMs: 0, eventLoopUtilization: 0, heapUsed: 0, rss: 0 };

  constructor(config: PressureConfig) {
    this.#config = config;
  }

  /** Starts sampling; memory is judged at once, the loop after the first interval. */
  start(): this {
    if (this.#timer) return this;
    const interval = this.#config.sampleIntervalMs;
    if (this.#config.maxEventLoopDelayMs > 0) {
      this.#histogram = monitorEventLoopDelay({ resolution: Math.max(1, Math.min(10, Math.floor(interval / 2))) });
      this.#histogram.enable();
    }
    this.#elu = performance.eventLoopUtilization();
    this.#lastTick = performance.now();
    this.#lastCpu = process.cpuUsage();
    this.#judge({ ...this.#sample, ...memory() });
    this.#timer = setInterval(() => this.#tick(), interval);
    this.#timer.unref();
    return this;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#histogram?.disable();
    this.#histogram = null;
  }

  overloaded(): boolean {
    return this.#reason !== null;
  }

  /** Which limit the last sample exceeded (null when not overloaded). */
  reason(): PressureReason | null {
    return this.#reason;
  }

  /** A one-off block by loading code has just ended (see the module comment). */
  excuseLoading(): void {
    this.#excusedTicks = 2;
  }

  lastSample(): Readonly<PressureSample> {
    return this.#sample;
  }

  #tick(): void {
    const now = performance.now();
    const elapsed = now - this.#lastTick;
    this.#lastTick = now;
    const elu = performance.eventLoopUtilization(this.#elu ?? undefined);
    this.#elu = performance.eventLoopUtilization();
    const cpu = process.cpuUsage(this.#lastCpu ?? undefined);
    this.#lastCpu = process.cpuUsage();
    const interval = this.#config.sampleIntervalMs;
    const excused = this.#excusedTicks > 0;
    if (excused) this.#excusedTicks--;
    const suspended = excused || (elapsed > 4 * interval && (cpu.user + cpu.system) / 1000 < 0.1 * elapsed);
    let delayMs = 0;
    if (this.#histogram) {
      const p99 = this.#ignoreHistogram ? 0 : this.#histogram.percentile(99) / 1e6;
      this.#histogram.reset();
      if (!suspended) delayMs = Math.max(Number.isFinite(p99) ? p99 : 0, elapsed - interval);
    }
    this.#ignoreHistogram = suspended;
    this.#judge({ eventLoopDelayMs: delayMs, eventLoopUtilization: suspended ? 0 : elu.utilization, ...memory() });
  }

  #judge(sample: PressureSample): void {
    this.#sample = sample;
    this.#reason = exceededLimit(sample, this.#config);
  }
}

function memory(): { heapUsed: number; rss: number } {
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

/** The monitor for this configuration, started; null when the limiter is off (no timer at all). */
export function startPressureMonitor(config: PressureConfig): PressureMonitor | null {
  return config.enabled ? new PressureMonitor(config).start() : null;
}

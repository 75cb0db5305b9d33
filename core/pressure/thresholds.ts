/** When the process counts as overloaded (PRESSURE_LIMITER_*; a limit of 0 is off). Pure, so the rule is tested
 * without blocking an event loop. */
import type { PressureConfig } from '../config.ts';

export interface PressureSample {
  /** The p99 event-loop delay over the last interval, in milliseconds. */
  eventLoopDelayMs: number;
  /** Event-loop utilisation over the last interval, 0..1. */
  eventLoopUtilization: number;
  /** process.memoryUsage().heapUsed, bytes. */
  heapUsed: number;
  /** process.memoryUsage().rss, bytes. */
  rss: number;
}

export type PressureLimits = Pick<PressureConfig, 'maxEventLoopDelayMs' | 'maxEventLoopUtilization' | 'maxMemoryHeapUsed' | 'maxMemoryRss'>;

export type PressureReason = 'eventLoopDelay' | 'eventLoopUtilization' | 'memoryHeapUsed' | 'memoryRss';

/** The first enabled limit the sample exceeds, or null. */
export function exceededLimit(sample: PressureSample, limits: PressureLimits): PressureReason | null {
  if (limits.maxEventLoopDelayMs > 0 && sample.eventLoopDelayMs > limits.maxEventLoopDelayMs) return 'eventLoopDelay';
  if (limits.maxEventLoopUtilization > 0 && sample.eventLoopUtilization > limits.maxEventLoopUtilization) return 'eventLoopUtilization';
  if (limits.maxMemoryHeapUsed > 0 && sample.heapUsed > limits.maxMemoryHeapUsed) return 'memoryHeapUsed';
  if (limits.maxMemoryRss > 0 && sample.rss > limits.maxMemoryRss) return 'memoryRss';
  return null;
}

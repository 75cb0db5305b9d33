/** Renders one transform with sharp and stores the output under its cache key (driver.write is atomic, so a
 * reader never sees half an output). Bounded on every side: a transform slot (ASSETS_TRANSFORM_MAX_CONCURRENT),
 * ASSETS_TRANSFORM_TIMEOUT (on expiry the pipeline is destroyed and any cache object removed: 503),
 * source images above ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION squared pixels refused (sharp limitInputPixels:
 * 422), invalid images under ASSETS_INVALID_IMAGE_SENSITIVITY_LEVEL (sharp failOn: 422). Orientation
 * metadata is applied before resizing. */
import type { Readable } from 'node:stream';
import type { Metadata, Sharp } from 'sharp';
import { loadSharp } from './load-sharp.ts';
import type { InvalidImageSensitivity } from '../files/config.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { ImageNotTransformableError, TransformUnavailableError } from './errors.ts';
import { focalCrop } from './focal-crop.ts';
import { OUTPUT_TYPE, type TransformPlan } from './transform-plan.ts';
import { tryAcquireTransformSlot } from './transform-slots.ts';

export interface TransformLimits {
  maxDimension: number;
  maxConcurrent: number;
  timeoutMs: number;
  failOn: InvalidImageSensitivity;
}

export interface RenderJob {
  /** Opens the original's bytes (called only once a slot is held). */
  open(): Promise<Readable>;
  plan: TransformPlan;
  driver: StorageDriver;
  cacheKey: string;
  limits: TransformLimits;
}

type Method = (this: Sharp, ...args: unknown[]) => Sharp;

function applyPlan(img: Sharp, plan: TransformPlan, source: { width: number; height: number; orientation: number }): void {
  img.autoOrient();
  const upright = source.orientation >= 5 ? { width: source.height, height: source.width } : { width: source.width, height: source.height };
  const { width, height } = plan;
  if (width !== undefined || height !== undefined) {
    const focal = plan.focalPointX !== undefined || plan.focalPointY !== undefined;
    const enlarges = width !== undefined && height !== undefined && Math.max(width / upright.width, height / upright.height) > 1;
    if (plan.fit === 'cover' && width !== undefined && height !== undefined && focal && !(plan.withoutEnlargement && enlarges)) {
      const crop = focalCrop(upright, { width, height }, { x: plan.focalPointX, y: plan.focalPointY });
      img.resize({ ...crop.resize, fit: 'fill' }).extract(crop.extract);
    } else {
      img.resize({ width, height, fit: plan.fit, withoutEnlargement: plan.withoutEnlargement ?? false });
    }
  }
  for (const [method, ...args] of plan.transforms ?? []) {
    // Methods and arguments were checked against the allow list in parse-transform.ts.
    ((img as unknown as Record<string, Method>)[method]).apply(img, args);
  }
  const quality = plan.quality !== undefined && plan.format !== 'gif' ? { quality: plan.quality } : {};
  img.toFormat(plan.format, quality);
}

/** Runs the job; resolves once the output is stored under job.cacheKey. */
export async function renderTransform(job: RenderJob): Promise<void> {
  const { limits } = job;
  const sharp = await loadSharp();
  const release = tryAcquireTransformSlot(limits.maxConcurrent);
  if (!release) throw new TransformUnavailableError('Too many image transformations are in progress, try again shortly.', 1);
  const img = sharp({ failOn: limits.failOn, limitInputPixels: limits.maxDimension * limits.maxDimension })
    // libvips stops on its own soon after our deadline, so an abandoned transform does not keep a core busy.
    .timeout({ seconds: Math.max(1, Math.ceil(limits.timeoutMs / 1000)) });
  let source: Readable | null = null;
  let sourceError: Error | null = null;
  let imageError: Error | null = null;
  let timedOut = false;
  let writing: Promise<number> | null = null;
  let timer: NodeJS.Timeout | undefined;
  const timeoutError = new TransformUnavailableError('The image transformation timed out.', Math.max(1, Math.ceil(limits.timeoutMs / 1000)));
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(timeoutError);
      source?.destroy();
      img.destroy();
    }, limits.timeoutMs);
  });
  deadline.catch(() => {});
  // sharp buffers a streamed input whole before decoding: more bytes than the largest image allowed could
  // take uncompressed (8 bytes a pixel) is not an image worth holding in memory.
  const maxInputBytes = limits.maxDimension * limits.maxDimension * 8;
  let failInput: (err: Error) => void = () => {};
  const inputFailed = new Promise<never>((_, reject) => { failInput = reject; });
  inputFailed.catch(() => {});
  img.on('error', (err: Error) => {
    if (!timedOut && err !== sourceError) imageError ??= err;
  });
  try {
    const opening = job.open();
    // A source opened after the deadline is closed at once.
    opening.then((s) => { if (timedOut) s.destroy(); }, () => {});
    source = await Promise.race([opening, deadline]);
    const input = source;
    input.on('error', (err: Error) => {
      sourceError = err;
      failInput(err);
      img.destroy(err);
    });
    let received = 0;
    input.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxInputBytes && !sourceError) {
        sourceError = new ImageNotTransformableError('The image is too large to be transformed.');
        failInput(sourceError);
        input.destroy();
        img.destroy();
      }
    });
    input.pipe(img);
    let meta: Metadata;
    try {
      // An input that fails before sharp has it all never lets metadata() settle: race it.
      meta = await Promise.race([img.metadata(), deadline, inputFailed]);
    } catch (err) {
      if (timedOut || err === sourceError) throw err;
      throw new ImageNotTransformableError(`The image can't be transformed: ${(err as Error).message}.`);
    }
    const width = meta.width ?? 0;
    const height = meta.pageHeight ?? meta.height ?? 0;
    if (!width || !height || width * height > limits.maxDimension * limits.maxDimension) {
      throw new ImageNotTransformableError('The image is too large to be transformed.');
    }
    applyPlan(img, job.plan, { width, height, orientation: meta.orientation ?? 1 });
    writing = job.driver.write(job.cacheKey, img, OUTPUT_TYPE[job.plan.format]);
    writing.catch(() => {});
    await Promise.race([writing, deadline, inputFailed]);
  } catch (err) {
    source?.destroy();
    img.destroy();
    if (timedOut) {
      // Whatever the store got so far goes: an aborted write leaves nothing, and a write that completed
      // just as the clock ran out is removed too, so no output of an expired transform is ever served.
      await writing?.catch(() => {});
      await job.driver.delete(job.cacheKey).catch(() => {});
      throw timeoutError;
    }
    if (err === sourceError) throw err;
    if (imageError) throw new ImageNotTransformableError(`The image can't be transformed: ${(imageError as Error).message}.`);
    throw err;
  } finally {
    clearTimeout(timer);
    release();
  }
}

/** Errors particular to assets, each a ServiceError of the catalogue carrying what the HTTP side must add. */
import { RangeNotSatisfiableError, ServiceUnavailableError, UnprocessableContentError } from '../errors.ts';

/** 503: every transform slot is taken, or a transform ran past ASSETS_TRANSFORM_TIMEOUT. */
export class TransformUnavailableError extends ServiceUnavailableError {
  readonly headers: Record<string, string>;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}

/** 422: the stored image can't be transformed (invalid or truncated under the sensitivity level, or larger
 * than ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION squared pixels). */
export class ImageNotTransformableError extends UnprocessableContentError {}

/** 416 with `Content-Range: bytes *\/size`. */
export class UnsatisfiableRangeError extends RangeNotSatisfiableError {
  readonly headers: Record<string, string>;
  constructor(size: number) {
    super();
    this.headers = { 'content-range': `bytes */${size}` };
  }
}

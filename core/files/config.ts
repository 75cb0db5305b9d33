/** FILES_*, ASSETS_*, TUS_* and STORAGE_LOCAL_ROOT (SPEC.md > Limits), parsed once with the rest of the config. */
import { resolve } from 'node:path';
import { AddressPolicy } from './import/addresses.ts';

type Env = Record<string, string | undefined>;

export type InvalidImageSensitivity = 'none' | 'truncated' | 'error' | 'warning';

export interface FilesConfig {
  /** Absolute root of the built-in `local` storage driver. */
  storageLocalRoot: string;
  maxUploadSize: number;
  /** `['*']` allows every type; otherwise MIME types or `type/*` patterns. */
  mimeTypeAllowList: string[];
  maxUploadConcurrency: number;
  /** CIDR ranges POST /files/import may reach although they are loopback, private or link-local. */
  importIpAllowList: string[];
  /** FILES_IMPORT_TIMEOUT: socket inactivity limit of POST /files/import's fetch. */
  importTimeoutMs: number;
  assetsTransformImageMaxDimension: number;
  assetsTransformMaxConcurrent: number;
  assetsTransformTimeoutMs: number;
  assetsCacheTtlMs: number;
  assetsInvalidImageSensitivityLevel: InvalidImageSensitivity;
  tusUploadExpirationMs: number;
  /** Five-field cron expression of the cleanup of expired incomplete uploads. */
  tusCleanupSchedule: string;
  /** Part size of resumable uploads to an objectstore (S3 multipart parts are at least 5 MB). */
  tusChunkSize: number;
}

export interface FilesConfigParsers {
  bytes(value: string): number;
  duration(value: string): number;
}

function value(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw.trim();
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = value(env, name, String(fallback));
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

const SENSITIVITY: InvalidImageSensitivity[] = ['none', 'truncated', 'error', 'warning'];

export function parseFilesConfig(env: Env, parse: FilesConfigParsers): FilesConfig {
  const sensitivity = value(env, 'ASSETS_INVALID_IMAGE_SENSITIVITY_LEVEL', 'warning') as InvalidImageSensitivity;
  if (!SENSITIVITY.includes(sensitivity)) throw new Error(`ASSETS_INVALID_IMAGE_SENSITIVITY_LEVEL must be one of ${SENSITIVITY.join(', ')}`);
  const schedule = value(env, 'TUS_CLEANUP_SCHEDULE', '0 */6 * * *');
  if (schedule.split(/\s+/).length !== 5) throw new Error(`TUS_CLEANUP_SCHEDULE must be a five-field cron expression, got "${schedule}"`);
  const importAllow = value(env, 'FILES_IMPORT_IP_ALLOW_LIST', '').split(',').map((v) => v.trim()).filter(Boolean);
  new AddressPolicy(importAllow); // refuses a malformed CIDR at start-up, not on the first import
  const mime = value(env, 'FILES_MIME_TYPE_ALLOW_LIST', '*').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);
  return {
    storageLocalRoot: resolve(value(env, 'STORAGE_LOCAL_ROOT', './uploads')),
    maxUploadSize: parse.bytes(value(env, 'FILES_MAX_UPLOAD_SIZE', '10mb')),
    mimeTypeAllowList: mime.length ? mime : ['*'],
    maxUploadConcurrency: positiveInt(env, 'FILES_MAX_UPLOAD_CONCURRENCY', 5),
    importIpAllowList: importAllow,
    importTimeoutMs: parse.duration(value(env, 'FILES_IMPORT_TIMEOUT', '30s')),
    assetsTransformImageMaxDimension: positiveInt(env, 'ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION', 6000),
    assetsTransformMaxConcurrent: positiveInt(env, 'ASSETS_TRANSFORM_MAX_CONCURRENT', 25),
    assetsTransformTimeoutMs: parse.duration(value(env, 'ASSETS_TRANSFORM_TIMEOUT', '30s')),
    assetsCacheTtlMs: parse.duration(value(env, 'ASSETS_CACHE_TTL', '30m')),
    assetsInvalidImageSensitivityLevel: sensitivity,
    tusUploadExpirationMs: parse.duration(value(env, 'TUS_UPLOAD_EXPIRATION', '10m')),
    tusCleanupSchedule: schedule,
    tusChunkSize: Math.max(5 * 1024 * 1024, parse.bytes(value(env, 'TUS_CHUNK_SIZE', '8mb'))),
  };
}

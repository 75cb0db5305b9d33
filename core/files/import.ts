/** POST /files/import {url, data}: the permission and the fields checked first, the URL fetched without
 * server-side request forgery (core/files/import/fetch.ts), then stored and recorded like an upload (limits,
 * allow list, probing). Nothing is stored or written when any step fails. */
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { InvalidPayloadError, ServiceError, ServiceUnavailableError } from '../errors.ts';
import type { StorageProviders } from '../storage/registry.ts';
import { AddressPolicy } from './import/addresses.ts';
import { fetchForImport } from './import/fetch.ts';
import { sanitizeDownloadName } from './names.ts';
import { checkFileCreate, clientFields, createFileRecord, type NewFile } from './records.ts';
import { storeFile } from './store.ts';

const policies = new Map<string, AddressPolicy>();

function policyFor(allowList: readonly string[]): AddressPolicy {
  const key = allowList.join(',');
  let p = policies.get(key);
  if (!p) {
    p = new AddressPolicy(allowList);
    policies.set(key, p);
  }
  return p;
}

export async function importFile(ctx: ServiceContext, providers: StorageProviders, url: unknown, data: unknown): Promise<string> {
  const raw = data === undefined || data === null ? {} : data;
  const requested = (raw as Record<string, unknown>).storage;
  if (requested !== undefined && typeof requested !== 'string') throw new InvalidPayloadError('Invalid payload. "storage" must be a string.', { field: 'storage' });
  const storage = requested ?? providers.defaultName;
  if (!providers.has(storage)) throw new InvalidPayloadError(`Invalid payload. Unknown storage "${storage.slice(0, 80)}".`, { field: 'storage' });
  const fields = clientFields(raw);
  const id = randomUUID();
  // The name is known only after the fetch; a placeholder stands in for the permission check.
  await checkFileCreate(ctx, fields, { id, storage, filename_download: 'import', type: null });
  const files = ctx.config.files;
  const fetched = await fetchForImport(url, { policy: policyFor(files.importIpAllowList), timeoutMs: files.importTimeoutMs, maxBytes: files.maxUploadSize });
  const filename = sanitizeDownloadName(fetched.filename, 'import');
  const file: NewFile = { id, storage, filename_download: filename, type: fetched.type };
  const driver = providers.get(storage);
  let content;
  try {
    content = await storeFile({ driver, id, filename, declaredType: fetched.type, data: fetched.body, config: files });
  } catch (err) {
    // The remote side failing mid-body (reset, inactivity timeout) is the upstream's failure, not ours.
    if (err instanceof ServiceError) throw err;
    throw new ServiceUnavailableError(`Couldn't fetch the URL: ${(err as Error).message}`);
  } finally {
    fetched.body.destroy();
  }
  try {
    return await createFileRecord(ctx, fields, file, content);
  } catch (err) {
    await driver.delete(content.filename_disk).catch(() => {});
    throw err;
  }
}

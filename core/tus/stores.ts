/** One tus DataStore over every storage provider (as Directus keeps one per storage location): an upload's bytes
 * are staged where its svc_files row says it is stored. Local providers share one @tus/file-store directory
 * (`{STORAGE_LOCAL_ROOT}/.tus`); each objectstore provider gets an S3 store on its bucket and credentials. */
import type { Readable } from 'node:stream';
import { FileStore } from '@tus/file-store';
import { DataStore, ERRORS, type Upload } from '@tus/utils';
import { appendUploadParts, selectUploadParts, selectUploadStorage } from '../files/table.ts';
import type { ConfigPort, DatabasePort, SchemaPort } from '../ports.ts';
import { ObjectstoreDriver } from '../storage/objectstore.ts';
import type { StoragePort } from '../storage/registry.ts';
import type { RecordedPartsS3Store, PartLog, UploadedPart } from './s3-store.ts';
import { abandonUpload, findUpload } from './uploads.ts';

/** The part list of S3 uploads, kept in svc_files.tus_data.parts (appended atomically, one statement each). */
export function rowPartLog(services: DatabasePort): PartLog {
  const db = () => services.database.db;
  return {
    async append(uploadId: string, part: UploadedPart): Promise<void> {
      await appendUploadParts(db(), uploadId, JSON.stringify([part]));
    },
    async list(uploadId: string): Promise<UploadedPart[]> {
      const stored = await selectUploadParts(db(), uploadId);
      const parts: unknown = typeof stored === 'string' ? JSON.parse(stored) : stored;
      return Array.isArray(parts) ? parts : [];
    },
  };
}

export class ProviderStores extends DataStore {
  readonly #s3 = new WeakMap<ObjectstoreDriver, RecordedPartsS3Store>();

  constructor(private readonly services: ConfigPort & DatabasePort & SchemaPort & StoragePort, readonly staging: FileStore, private readonly parts: PartLog) {
    super();
    this.extensions = ['creation', 'creation-with-upload', 'creation-defer-length', 'termination'];
  }

  /** The store for uploads to a storage provider. */
  async storeFor(storage: string): Promise<FileStore | RecordedPartsS3Store> {
    const providers = await this.services.storage.providers((await this.services.schema.get()).version);
    const driver = providers.get(storage);
    if (!(driver instanceof ObjectstoreDriver)) return this.staging;
    let store = this.#s3.get(driver);
    if (!store) {
      // @tus/s3-store and the S3 SDK load with the first upload to an objectstore provider.
      const { RecordedPartsS3Store } = await import('./s3-store.ts');
      store = this.#s3.get(driver) ?? new RecordedPartsS3Store(driver, this.parts, this.services.config.files.tusChunkSize);
      this.#s3.set(driver, store);
    }
    return store;
  }

  async storeOf(id: string): Promise<FileStore | RecordedPartsS3Store> {
    const storage = await selectUploadStorage(this.services.database.db, id);
    if (storage === null) throw ERRORS.FILE_NOT_FOUND;
    return this.storeFor(storage);
  }

  /** The row is made first (onUploadCreate); when the store then fails (a bucket out of reach) the row goes too, so
   * the client, told to try again, begins anew and no incomplete upload waits for its expiry. */
  override async create(upload: Upload): Promise<Upload> {
    const store = await this.storeOf(upload.id);
    try {
      return await store.create(upload);
    } catch (err) {
      const db = this.services.database.db;
      const row = await findUpload(db, upload.id).catch(() => null);
      if (row) await abandonUpload(db, row).catch(() => {});
      throw err;
    }
  }

  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    return (await this.storeOf(id)).write(stream, id, offset);
  }

  override async getUpload(id: string): Promise<Upload> {
    return (await this.storeOf(id)).getUpload(id);
  }

  override async declareUploadLength(id: string, length: number): Promise<void> {
    return (await this.storeOf(id)).declareUploadLength(id, length);
  }

  override async remove(id: string): Promise<void> {
    return (await this.storeOf(id)).remove(id);
  }

  /** Removes staged bytes when the row may already be gone (cleanup names the storage). Absent is fine. */
  async removeFrom(storage: string, id: string): Promise<void> {
    const store = await this.storeFor(storage).catch(() => null);
    await store?.remove(id).catch(() => {});
  }

  /** The staged bytes of a complete upload. */
  async read(id: string): Promise<Readable> {
    const store = await this.storeOf(id);
    return (await store.read(id)) as Readable;
  }
}

/** The embedded engine's data directory as files. While the database's only connection is held and a checkpoint has
 * run, no statement runs and everything committed is in these files, so reading them then is a consistent copy (the
 * same as a cleanly stopped server's directory). They are read into memory, the quickest way to let requests go on
 * again (a copy on disk takes several times longer), and written out afterwards. PGlite's lock file is left out, so
 * a restored directory does not look in use. */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const LOCK_FILE = 'postmaster.pid';
const PARALLEL_READS = 8;

export type DataFiles = Map<string, Buffer>;

async function listFiles(root: string, rel = ''): Promise<string[]> {
  const entries = await readdir(join(root, rel), { withFileTypes: true });
  const nested = await Promise.all(entries.map(async (entry) => {
    const path = rel ? join(rel, entry.name) : entry.name;
    if (entry.isDirectory()) return [path + '/', ...(await listFiles(root, path))];
    return entry.isFile() && path !== LOCK_FILE ? [path] : [];
  }));
  return nested.flat();
}

/** Every file (and, as `dir/` keys with an empty buffer, every folder) under `root`, by relative path. */
export async function readDataFiles(root: string): Promise<DataFiles> {
  const paths = await listFiles(root);
  const files: DataFiles = new Map();
  let next = 0;
  await Promise.all(Array.from({ length: PARALLEL_READS }, async () => {
    while (next < paths.length) {
      const path = paths[next++];
      files.set(path, path.endsWith('/') ? Buffer.alloc(0) : await readFile(join(root, path)));
    }
  }));
  return files;
}

/** Writes what readDataFiles read under `root` (owner-only). */
export async function writeDataFiles(files: DataFiles, root: string): Promise<void> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  for (const [path, bytes] of files) {
    if (path.endsWith('/')) {
      await mkdir(join(root, path), { recursive: true, mode: 0o700 });
    } else {
      await mkdir(dirname(join(root, path)), { recursive: true, mode: 0o700 });
      await writeFile(join(root, path), bytes, { mode: 0o600 });
    }
  }
}

/** The files of the built-in local storage root, frozen at one moment: each stored object is hard-linked into a
 * folder of the backup's (a copy where the file system refuses links). The local driver never changes a file in
 * place (it writes a hidden temporary file and renames it), so a link keeps the bytes of that moment even when the
 * object is replaced or deleted afterwards. Hidden entries (temporary `.part` files, the `.tus` staging folder of
 * unfinished resumable uploads) are not objects and are left out. */
import { copyFile, link, mkdir, opendir } from 'node:fs/promises';
import { join } from 'node:path';

const NO_LINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK']);

/** Links (or copies) every object of `root` into `into`; returns how many. A missing root holds none. */
export async function snapshotUploads(root: string, into: string): Promise<number> {
  let dir;
  try {
    dir = await opendir(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  await mkdir(into, { recursive: true });
  let count = 0;
  for await (const entry of dir) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const from = join(root, entry.name);
    const to = join(into, entry.name);
    try {
      await link(from, to);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      // Deleted since the listing: it is not part of the snapshot.
      if (code === 'ENOENT') continue;
      if (!NO_LINK.has(code)) throw err;
      try {
        await copyFile(from, to);
      } catch (copyErr) {
        if ((copyErr as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw copyErr;
      }
    }
    count++;
  }
  return count;
}

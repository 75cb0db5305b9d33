/** Removing a file's bytes: the stored object and its cached transforms (`{basename}__*`). */
import type { StorageDriver } from '../storage/driver.ts';
import { keyBase } from './names.ts';

export async function removeTransforms(driver: StorageDriver, filenameDisk: string): Promise<void> {
  const prefix = `${keyBase(filenameDisk)}__`;
  const keys: string[] = [];
  for await (const key of driver.list(prefix)) keys.push(key);
  for (const key of keys) await driver.delete(key);
}

export async function removeStoredFile(driver: StorageDriver, filenameDisk: string): Promise<void> {
  await driver.delete(filenameDisk);
  await removeTransforms(driver, filenameDisk);
}

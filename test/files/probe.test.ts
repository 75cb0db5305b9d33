/** probeStoredFile against a local driver, and the import address policy: table-driven. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { probeStoredFile } from '../../core/files/metadata.ts';
import { AddressPolicy, embeddedIPv4 } from '../../core/files/import/addresses.ts';
import { LocalDriver } from '../../core/storage/local.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-probe-'));
const driver = new LocalDriver(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function put(key: string, data: Buffer | string): Promise<void> {
  await driver.write(key, Readable.from([Buffer.from(data)]));
}

describe('probeStoredFile', () => {
  it('reports images by their bytes, rotated sizes as displayed', async () => {
    await put('a.jpg', await sharp({ create: { width: 30, height: 10, channels: 3, background: 'red' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer());
    expect(await probeStoredFile(driver, 'a.jpg', 'application/octet-stream')).toMatchObject({ type: 'image/jpeg', width: 10, height: 30 });
    await put('b.webp', await sharp({ create: { width: 5, height: 4, channels: 3, background: 'red' } }).webp().toBuffer());
    expect(await probeStoredFile(driver, 'b.webp', 'image/png')).toMatchObject({ type: 'image/webp', width: 5, height: 4 });
    await put('c.gif', await sharp({ create: { width: 3, height: 2, channels: 3, background: 'red' } }).gif().toBuffer());
    expect(await probeStoredFile(driver, 'c.gif', null)).toMatchObject({ type: 'image/gif', width: 3, height: 2 });
  });

  it('finds the header of an image whose metadata is larger than the first read', async () => {
    const jpeg = await sharp({ create: { width: 7, height: 3, channels: 3, background: 'red' } }).jpeg().toBuffer();
    // Five 64 KB APP15 segments between SOI and the frame header push it past the first 256 KB read.
    const pad = Buffer.concat([Buffer.from([0xff, 0xef, 0xff, 0xff]), Buffer.alloc(0xffff - 2, 0x20)]);
    const big = Buffer.concat([jpeg.subarray(0, 2), pad, pad, pad, pad, pad, jpeg.subarray(2)]);
    expect(big.length).toBeGreaterThan(300 * 1024);
    await put('big.jpg', big);
    expect(await probeStoredFile(driver, 'big.jpg', 'image/jpeg')).toMatchObject({ type: 'image/jpeg', width: 7, height: 3 });
  });

  it('keeps the declared type of non-images, with charsets for text', async () => {
    await put('t.txt', 'plain ascii');
    expect(await probeStoredFile(driver, 't.txt', 'text/plain')).toMatchObject({ type: 'text/plain', charset: 'us-ascii', width: null });
    await put('l.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(await probeStoredFile(driver, 'l.txt', 'text/plain')).toMatchObject({ charset: null });
    expect(await probeStoredFile(driver, 'l.txt', 'text/plain; charset=ISO-8859-1')).toMatchObject({ type: 'text/plain', charset: 'iso-8859-1' });
    await put('d.pdf', '%PDF-1.4');
    expect(await probeStoredFile(driver, 'd.pdf', 'application/pdf')).toEqual({ type: 'application/pdf', width: null, height: null, duration: null, charset: null, metadata: null });
    await put('e.bin', '');
    expect(await probeStoredFile(driver, 'e.bin', 'image/png')).toMatchObject({ type: 'image/png', width: null });
  });
});

describe('AddressPolicy', () => {
  const strict = new AddressPolicy([]);
  it.each([
    ['8.8.8.8', true], ['1.1.1.1', true], ['2606:4700:4700::1111', true], ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false], ['127.255.0.9', false], ['10.0.0.1', false], ['172.16.0.1', false], ['172.31.255.255', false],
    ['172.32.0.1', true], ['192.168.1.1', false], ['169.254.169.254', false], ['0.0.0.0', false], ['100.64.0.1', false],
    ['224.0.0.1', false], ['239.255.255.250', false], ['255.255.255.255', false],
    ['::1', false], ['::', false], ['fe80::1', false], ['fc00::1', false], ['fd12:3456::1', false], ['ff02::1', false],
    ['::ffff:127.0.0.1', false], ['::ffff:7f00:1', false], ['::ffff:169.254.169.254', false], ['::ffff:a9fe:a9fe', false],
    ['::127.0.0.1', false], ['64:ff9b::a9fe:a9fe', false], ['2002:0a00:0001::1', false], ['not an ip', false],
  ])('%s -> %s', (address, expected) => {
    expect(strict.permits(address)).toBe(expected);
  });

  it('lets FILES_IMPORT_IP_ALLOW_LIST ranges through, in every form of the address', () => {
    const p = new AddressPolicy(['127.0.0.1/32', '10.1.0.0/16', 'fd00::/8']);
    expect(p.permits('127.0.0.1')).toBe(true);
    expect(p.permits('::ffff:127.0.0.1')).toBe(true);
    expect(p.permits('127.0.0.2')).toBe(false);
    expect(p.permits('10.1.200.3')).toBe(true);
    expect(p.permits('10.2.0.1')).toBe(false);
    expect(p.permits('fd00::5')).toBe(true);
    expect(p.permits('169.254.169.254')).toBe(false);
    expect(() => new AddressPolicy(['nonsense/8'])).toThrow();
    expect(() => new AddressPolicy(['10.0.0.0/40'])).toThrow();
  });

  it('finds the IPv4 address inside IPv6 forms', () => {
    expect(embeddedIPv4('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(embeddedIPv4('::ffff:0102:0304')).toBe('1.2.3.4');
    expect(embeddedIPv4('64:ff9b::1.2.3.4')).toBe('1.2.3.4');
    expect(embeddedIPv4('2002:0102:0304::')).toBe('1.2.3.4');
    expect(embeddedIPv4('2606:4700::1')).toBeNull();
    expect(embeddedIPv4('::1')).toBeNull();
  });
});

/** A JPEG with an IPTC block (APP13, Photoshop 3.0 / 8BIM 0x0404): sharp writes no IPTC, so it is spliced in. */

function dataset(n: number, value: string): Buffer {
  const data = Buffer.from(value, 'utf8');
  const head = Buffer.from([0x1c, 2, n, data.length >> 8, data.length & 255]);
  return Buffer.concat([head, data]);
}

export function withIptc(jpeg: Buffer, iptc: { caption?: string; keywords?: string[] }): Buffer {
  const sets: Buffer[] = [];
  if (iptc.caption) sets.push(dataset(120, iptc.caption));
  for (const k of iptc.keywords ?? []) sets.push(dataset(25, k));
  let block = Buffer.concat(sets);
  if (block.length % 2) block = Buffer.concat([block, Buffer.from([0])]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(block.length - (Buffer.concat(sets).length % 2 ? 1 : 0));
  const irb = Buffer.concat([Buffer.from('8BIM'), Buffer.from([0x04, 0x04, 0, 0]), size, block]);
  const payload = Buffer.concat([Buffer.from('Photoshop 3.0\0'), irb]);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(payload.length + 2);
  const app13 = Buffer.concat([Buffer.from([0xff, 0xed]), len, payload]);
  return Buffer.concat([jpeg.subarray(0, 2), app13, jpeg.subarray(2)]);
}

/** Test images made with sharp. */
import sharp from 'sharp';

/** A JPEG whose stored pixels are `width` x `height` (left half red, right half blue) with an EXIF orientation. */
export async function halves(width: number, height: number, format: 'jpeg' | 'png' = 'png', orientation?: number): Promise<Buffer> {
  const half = Math.floor(width / 2);
  const left = await sharp({ create: { width: half, height, channels: 3, background: '#ff0000' } }).png().toBuffer();
  const base = sharp({ create: { width, height, channels: 3, background: '#0000ff' } }).composite([{ input: left, left: 0, top: 0 }]);
  const encoded = await (format === 'jpeg' ? base.jpeg({ quality: 90 }) : base.png()).toBuffer();
  return orientation ? sharp(encoded).withMetadata({ orientation }).toFormat(format).toBuffer() : encoded;
}

/** Noise compresses badly, so transforms of it take real work. */
export async function noise(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let x = 12345;
  for (let i = 0; i < raw.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    raw[i] = x >> 16;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

/** Mean red and blue of an image (0..255). */
export async function meanRedBlue(image: Buffer): Promise<{ red: number; blue: number }> {
  const stats = await sharp(image).stats();
  return { red: stats.channels[0].mean, blue: stats.channels[2].mean };
}

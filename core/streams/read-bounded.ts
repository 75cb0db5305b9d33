/** Reading a whole stream with a size bound enforced while it arrives (request bodies, fetched certificates). */

/** A whole body of at most `limit` bytes; null (and the stream cancelled) once it grows past that. */
export async function readBounded(body: ReadableStream<Uint8Array>, limit: number): Promise<Buffer | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

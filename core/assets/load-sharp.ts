/** sharp (libvips, a native addon of ~20 MB) is loaded on the first image operation, not at import: most requests,
 * and a Lambda cold start in particular, never touch an image. */
type SharpFactory = typeof import('sharp')['default'];

let sharp: Promise<SharpFactory> | null = null;

export function loadSharp(): Promise<SharpFactory> {
  sharp ??= import('sharp').then((m) => m.default).catch((err: unknown) => {
    sharp = null;
    throw err;
  });
  return sharp;
}

/** Cover crops around a focal point (as Directus): scale the image so it covers the box, then cut the box out
 * centred on the (scaled) focal point, shifted back inside the image at the edges. Coordinates are in pixels of
 * the upright (auto-rotated) source; an absent coordinate means the centre. */

export interface FocalCrop {
  resize: { width: number; height: number };
  extract: { left: number; top: number; width: number; height: number };
}

export function focalCrop(source: { width: number; height: number }, box: { width: number; height: number }, focal: { x?: number; y?: number }): FocalCrop {
  const scale = Math.max(box.width / source.width, box.height / source.height);
  const width = Math.max(box.width, Math.round(source.width * scale));
  const height = Math.max(box.height, Math.round(source.height * scale));
  const fx = (focal.x ?? source.width / 2) * scale;
  const fy = (focal.y ?? source.height / 2) * scale;
  const clamp = (v: number, max: number) => Math.min(Math.max(0, v), max);
  return {
    resize: { width, height },
    extract: {
      left: clamp(Math.round(fx - box.width / 2), width - box.width),
      top: clamp(Math.round(fy - box.height / 2), height - box.height),
      width: box.width,
      height: box.height,
    },
  };
}

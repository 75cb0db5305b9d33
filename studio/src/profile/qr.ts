/** A QR code as an image URL (an SVG in a data: URL, which the Studio's CSP allows for images). */
import { renderSVG } from 'uqr';

export function qrDataUrl(text: string): string {
  const svg = renderSVG(text, { ecc: 'M', border: 2 });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** HTML the Studio shows in a frame (a message preview, a sent message): rendered email is shown as a mail client
 * would show it (its inline styles and remote images), which the Studio's own strict CSP forbids in a document it
 * writes itself (a srcdoc frame inherits that policy). So such HTML is a response of its own, with its own policy:
 * `sandbox` (an opaque origin, no scripts, no forms, no popups), nothing loaded but styles, images and fonts, and
 * only the Studio (this origin) may frame it. Never cached. */
import type { Context } from 'hono';
import type { AppEnv } from './env.ts';

export const FRAMED_CSP = [
  'sandbox', "default-src 'none'", "style-src 'unsafe-inline' https:", 'img-src https: data:', 'font-src https: data:', "frame-ancestors 'self'",
].join('; ');

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** Plain text (chat and in-app messages, an error) as a document: escaped, lines kept. */
export function textDocument(text: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:12px;font:14px/1.5 system-ui,sans-serif;white-space:pre-wrap;overflow-wrap:anywhere;color:#1b2330;background:#fff}</style></head><body>${escapeHtml(text)}</body></html>`;
}

export function framedDocument(c: Context<AppEnv>, html: string, status = 200): Response {
  return c.body(html, status as 200, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': FRAMED_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
}

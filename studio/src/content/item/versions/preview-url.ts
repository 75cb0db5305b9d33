/** The website address live preview opens: the collection's `preview_url` with Directus' {{field}} placeholders
 * filled from the item (a path such as {{author.slug}} follows a related item; a related item stands for its key),
 * then the preview contract's parameters (SPEC.md > Preview contract): svc_preview=1, and svc_version=<uuid> on a
 * draft. Only absolute http(s) addresses: the frame's origin must be one the Studio's CSP lists. */

export type PreviewAddress =
  | { ok: true; url: string; origin: string }
  | { ok: false; reason: string };

type Row = Record<string, unknown>;

function pathValue(item: Row, path: string, pkOf: (v: Row) => unknown): unknown {
  let cur: unknown = item;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Row)[part];
  }
  if (cur !== null && typeof cur === 'object' && !Array.isArray(cur)) return pkOf(cur as Row);
  return cur;
}

export function previewAddress(template: string, item: Row, versionId: string | null, pkOf: (v: Row) => unknown = (v) => v.id): PreviewAddress {
  const missing: string[] = [];
  const filled = template.trim().replace(/\{\{\s*([\w.$-]+)\s*\}\}/g, (_, path: string) => {
    const v = pathValue(item, path, pkOf);
    if (v === null || v === undefined || v === '' || typeof v === 'object') {
      missing.push(path);
      return '';
    }
    return encodeURIComponent(String(v));
  });
  if (missing.length > 0) {
    return { ok: false, reason: `The preview address needs ${missing.map((m) => `“${m}”`).join(' and ')}, which ${missing.length === 1 ? 'is' : 'are'} empty in this item. Fill ${missing.length === 1 ? 'it' : 'them'} in and save.` };
  }
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return { ok: false, reason: `The collection’s preview address “${template}” is not a full web address (https://…). An administrator can fix it in the data model.` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'The preview address must start with https:// or http://.' };
  url.searchParams.set('svc_preview', '1');
  if (versionId) url.searchParams.set('svc_version', versionId);
  else url.searchParams.delete('svc_version');
  return { ok: true, url: url.toString(), origin: url.origin };
}

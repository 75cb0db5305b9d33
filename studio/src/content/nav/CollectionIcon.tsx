/** A collection's icon (meta.icon, a Material Symbols name as in Directus) as a glyph on its color (meta.color).
 * The Studio ships no icon font: common names map to a glyph, others show the name's initial. The glyph's color is
 * chosen for contrast against the collection color. */

const GLYPHS: Record<string, string> = {
  folder: '▸', folder_open: '▾', article: '¶', description: '¶', notes: '≡', text_snippet: '¶', book: '❡',
  person: '☺', people: '☺', group: '☺', account_circle: '☺', face: '☺', badge: '☺',
  image: '▣', photo: '▣', photo_library: '▣', movie: '▶', videocam: '▶', music_note: '♪', audiotrack: '♪',
  label: '#', sell: '#', tag: '#', local_offer: '#', category: '◆', bookmark: '❖', star: '★', favorite: '♥',
  event: '◷', calendar_today: '◷', schedule: '◷', today: '◷', home: '⌂', house: '⌂', settings: '⚙', tune: '⚙',
  shopping_cart: '⊕', store: '⊕', payments: '¤', attach_money: '$', euro: '€', public: '◍', language: '◍', place: '⌖',
  location_on: '⌖', map: '⌖', mail: '✉', email: '✉', chat: '✎', comment: '✎', edit: '✎', link: '⛓', list: '≡',
  view_list: '≡', table_rows: '▤', box: '▢', inventory_2: '▢', database: '▤', lock: '⚿', flag: '⚑', work: '▰',
};

/** The icon names that have a glyph (the data model offers them). */
export const ICON_NAMES: readonly string[] = Object.keys(GLYPHS);

/** Black or white text, whichever reads better on `color` (a CSS hex color); null when it is not hex. */
function textOn(color: string): string | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m) return null;
  const hex = m[1].length === 3 ? m[1].split('').map((c) => c + c).join('') : m[1];
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) ? '#000000' : '#ffffff';
}

export function CollectionIcon({ icon, color, folder, name }: { icon?: string | null; color?: string | null; folder?: boolean; name: string }) {
  // A folder's chevron already says what it is; its icon shows only when it says more (another icon, a color).
  if (folder && (!icon || icon === 'folder' || icon === 'folder_open') && !color) return null;
  const glyph = (icon && GLYPHS[icon]) ?? (folder ? '▸' : name.charAt(0).toUpperCase());
  const fg = color ? textOn(color) : null;
  const style = color && fg ? { background: color, color: fg } : undefined;
  return <span className={style ? 'coll-icon colored' : 'coll-icon'} style={style} aria-hidden="true">{glyph}</span>;
}

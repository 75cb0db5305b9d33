/** Deterministic benchmark data: a seeded PRNG (mulberry32) and generators for authors and posts. The same
 * seed always yields the same rows, so runs are comparable. */

export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rng: Rng, list: readonly T[]): T {
  return list[Math.floor(rng() * list.length)];
}

export function intBetween(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

const WORDS = [
  'alpha', 'amber', 'anchor', 'apple', 'arrow', 'atlas', 'autumn', 'badge', 'banner', 'basket', 'beacon', 'birch',
  'blossom', 'border', 'breeze', 'bridge', 'bronze', 'cabin', 'canyon', 'carbon', 'castle', 'cedar', 'chapter',
  'circle', 'citadel', 'cloud', 'cobalt', 'comet', 'coral', 'cotton', 'crystal', 'dawn', 'delta', 'desert', 'harbor',
  'echo', 'ember', 'engine', 'falcon', 'feather', 'field', 'forest', 'fossil', 'garden', 'glacier', 'granite',
  'harvest', 'horizon', 'island', 'ivory', 'jasmine', 'journey', 'juniper', 'kernel', 'lantern', 'lattice', 'legend',
  'meadow', 'marble', 'meteor', 'mirror', 'mosaic', 'nebula', 'needle', 'north', 'oasis', 'ocean', 'orbit', 'orchid',
  'palace', 'pepper', 'pillar', 'planet', 'prairie', 'quartz', 'quiver', 'radar', 'rain', 'raven', 'ridge', 'river',
  'saddle', 'sapphire', 'shadow', 'signal', 'silver', 'summit', 'sunset', 'tango', 'temple', 'thunder', 'timber',
  'tunnel', 'umbra', 'valley', 'velvet', 'vertex', 'violet', 'walnut', 'willow', 'window', 'winter', 'yonder', 'zenith',
] as const;

/** Appears in about 1 % of titles and nowhere else: the `search` scenario has hits but must scan for them. */
export const SEARCH_WORD = 'zephyr';
/** Added by withSearchWords (run.ts seeding): about 0.25 % of titles, and about 0.01 % of bodies. */
export const UNCOMMON_SEARCH_WORD = 'narwhal';
export const RARE_SEARCH_WORD = 'quokka';

const FIRST = ['Ada', 'Alan', 'Barbara', 'Claude', 'Dennis', 'Edsger', 'Frances', 'Grace', 'Hedy', 'Ivan', 'Joan',
  'Ken', 'Linus', 'Margaret', 'Niklaus', 'Ole', 'Radia', 'Shafi', 'Tim', 'Whitfield'] as const;
const LAST = ['Lovelace', 'Turing', 'Liskov', 'Shannon', 'Ritchie', 'Dijkstra', 'Allen', 'Hopper', 'Lamarr', 'Sutherland',
  'Clarke', 'Thompson', 'Torvalds', 'Hamilton', 'Wirth', 'Dahl', 'Perlman', 'Goldwasser', 'Berners-Lee', 'Diffie'] as const;

export const STATUSES = ['published', 'draft', 'archived'] as const;

export interface AuthorInput { name: string; email: string }
export interface PostInput {
  title: string;
  body: string;
  status: string;
  views: number;
  published_on: string;
  author: number;
}

export function makeAuthor(rng: Rng, index: number): AuthorInput {
  const first = pick(rng, FIRST);
  const last = pick(rng, LAST);
  return { name: `${first} ${last}`, email: `${first}.${last}.${index}@example.com`.toLowerCase() };
}

function words(rng: Rng, min: number, max: number): string[] {
  const n = intBetween(rng, min, max);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(pick(rng, WORDS));
  return out;
}

const START = Date.UTC(2020, 0, 1);
const SPAN = Date.UTC(2025, 0, 1) - START;

export function makePost(rng: Rng, authorIds: readonly number[]): PostInput {
  const titleWords = words(rng, 3, 7);
  if (rng() < 0.01) titleWords.splice(intBetween(rng, 0, titleWords.length), 0, SEARCH_WORD);
  const title = titleWords.join(' ');
  const sentences: string[] = [];
  const count = intBetween(rng, 3, 6);
  for (let i = 0; i < count; i++) {
    const s = words(rng, 6, 12).join(' ');
    sentences.push(s[0].toUpperCase() + s.slice(1) + '.');
  }
  const r = rng();
  const status = r < 0.6 ? STATUSES[0] : r < 0.9 ? STATUSES[1] : STATUSES[2];
  // Whole seconds, so the wire value is the same whatever the timestamp precision of the column.
  const publishedOn = new Date(START + Math.floor((rng() * SPAN) / 1000) * 1000).toISOString();
  return {
    title: title[0].toUpperCase() + title.slice(1),
    body: sentences.join(' '),
    status,
    views: intBetween(rng, 0, 100_000),
    published_on: publishedOn,
    author: pick(rng, authorIds),
  };
}

/** Puts UNCOMMON_SEARCH_WORD into about 0.25 % of titles and RARE_SEARCH_WORD into about 0.01 % of bodies, drawing
 * from its own generator, so the posts makePost yields stay those of earlier runs. */
export function withSearchWords(post: PostInput, rng: Rng): PostInput {
  const title = rng() < 0.0025 ? `${post.title} ${UNCOMMON_SEARCH_WORD}` : post.title;
  const body = rng() < 0.0001 ? `${post.body} A ${RARE_SEARCH_WORD} appears.` : post.body;
  return { ...post, title, body };
}

/** What a `_regex` pattern may ask of Postgres' regular expression engine. Postgres compiles the pattern into an
 * automaton and matches without backtracking, so the work per row is linear in the text, with three exceptions a
 * client could use to hold the database (and, on the embedded engine, which runs inside this process and can't be
 * interrupted, the whole server) for seconds to hours with one short pattern:
 *  - backreferences (`\1`): matching falls back to trying every split of the text, exponential in the groups;
 *  - lookahead and lookbehind constraints (`(?=`, `(?!`, `(?<=`, `(?<!`): each is run again from every position,
 *    quadratic in the text (`(?=.*c)` over 20 kB: ~60 ms a row);
 *  - nested repetition (`((a|b){1,255}){1,255}`, `((((a|b)+)+)+)+...`): compiling alone grows with the product of
 *    the bounds or exponentially with the depth (four nested {1,255} ran for over ten minutes on the embedded
 *    engine; fifteen nested `+` took 5.5 s).
 * These are refused before any SQL is sent; everything else Postgres' engine does in linear time. `(?b)` (basic
 * syntax, whose bounds are written `\{m,n\}`) is refused too, as it would hide repetition from the count below. */

/** Longest `_regex` pattern accepted (Postgres compiles it per statement). */
export const MAX_REGEX_LENGTH = 500;
/** Atoms after expanding bounded repetitions (`x{1,200}` counts 200 times x): what the automaton grows with. */
export const MAX_REGEX_EXPANSION = 1000;
/** Quantifiers applied to something already quantified, e.g. `((a+)*){2}` is 3 deep. */
export const MAX_REGEX_NESTING = 3;

interface Item { size: number; depth: number }
interface Group { size: number; depth: number; last: Item | null }

/** Why the pattern is refused (a phrase to follow `"_regex" on field "x"`), or null when it is accepted. */
export function regexRefusal(pattern: string): string | null {
  let p = pattern;
  // Director prefixes: `***=` makes the rest a literal string, `***:` says the rest is an advanced RE (the default).
  if (p.startsWith('***=')) return null;
  if (p.startsWith('***:')) p = p.slice(4);
  const options = /^\(\?([a-z]*)\)/.exec(p);
  if (options) {
    if (options[1].includes('b')) return 'uses basic regular expression syntax ((?b)), which is not supported';
    if (options[1].includes('q')) return null;
    p = p.slice(options[0].length);
  }
  const stack: Group[] = [{ size: 0, depth: 0, last: null }];
  const top = (): Group => stack[stack.length - 1];
  const add = (item: Item): void => {
    const g = top();
    g.size += item.size;
    g.depth = Math.max(g.depth, item.depth);
    g.last = item;
  };
  const quantify = (times: number): void => {
    const g = top();
    const item = g.last;
    // A quantifier with nothing to repeat is Postgres' error to report (400 through the 2201B mapping).
    if (!item) return;
    g.size += item.size * (Math.max(times, 1) - 1);
    g.depth = Math.max(g.depth, item.depth + 1);
    g.last = null;
  };
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      const next = p[i + 1] ?? '';
      if (next >= '1' && next <= '9') return `uses a backreference (\\${next}), which is not supported`;
      if (next === 'k') return 'uses a named backreference (\\k), which is not supported';
      i++;
      add({ size: 1, depth: 0 });
    } else if (c === '[') {
      i = bracketEnd(p, i);
      add({ size: 1, depth: 0 });
    } else if (c === '(') {
      if (p[i + 1] === '?') {
        const kind = p.slice(i + 2, i + 4);
        if (kind[0] === '=' || kind[0] === '!' || kind === '<=' || kind === '<!') {
          return `uses a lookahead or lookbehind constraint (${p.slice(i, i + (kind[0] === '<' ? 4 : 3))}), which is not supported`;
        }
        if (kind[0] === '#') {
          // A comment: (?#text)
          const end = p.indexOf(')', i);
          i = end === -1 ? p.length : end;
          continue;
        }
        if (kind[0] === ':') i += 2;
      }
      stack.push({ size: 0, depth: 0, last: null });
    } else if (c === ')') {
      if (stack.length > 1) {
        const g = stack.pop()!;
        add({ size: g.size, depth: g.depth });
      }
    } else if (c === '|') {
      top().last = null;
    } else if (c === '*' || c === '?') {
      quantify(1);
      if (p[i + 1] === '?') i++;
    } else if (c === '+') {
      quantify(2);
      if (p[i + 1] === '?') i++;
    } else if (c === '{' && /^\{\d/.test(p.slice(i, i + 2))) {
      const bound = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
      if (!bound) {
        add({ size: 1, depth: 0 });
        continue;
      }
      const low = Number(bound[1]);
      const high = bound[2] === undefined ? low : bound[3] === '' ? low + 1 : Number(bound[3]);
      quantify(Math.max(low, high));
      i += bound[0].length - 1;
      if (p[i + 1] === '?') i++;
    } else {
      add({ size: 1, depth: 0 });
    }
    const g = top();
    if (g.size > MAX_REGEX_EXPANSION) return `repeats too much (more than ${MAX_REGEX_EXPANSION} atoms once its bounded repetitions are expanded)`;
    if (g.depth > MAX_REGEX_NESTING) return `nests quantifiers more than ${MAX_REGEX_NESTING} deep`;
  }
  // Unclosed groups are Postgres' error to report; their sizes still count.
  let size = 0;
  let depth = 0;
  for (const g of stack) {
    size += g.size;
    depth = Math.max(depth, g.depth);
  }
  if (size > MAX_REGEX_EXPANSION) return `repeats too much (more than ${MAX_REGEX_EXPANSION} atoms once its bounded repetitions are expanded)`;
  if (depth > MAX_REGEX_NESTING) return `nests quantifiers more than ${MAX_REGEX_NESTING} deep`;
  return null;
}

/** The index of the `]` closing the bracket expression that opens at `start` (the end of the pattern if none). */
function bracketEnd(p: string, start: number): number {
  let i = start + 1;
  if (p[i] === '^') i++;
  // A `]` first in the list is a literal.
  if (p[i] === ']') i++;
  for (; i < p.length; i++) {
    const c = p[i];
    if (c === ']') return i;
    if (c === '\\') {
      i++;
    } else if (c === '[' && (p[i + 1] === ':' || p[i + 1] === '=' || p[i + 1] === '.')) {
      // [:alpha:], [=a=], [.a.]: closed by the same mark and `]`.
      const end = p.indexOf(`${p[i + 1]}]`, i + 2);
      if (end === -1) return p.length;
      i = end + 1;
    }
  }
  return p.length;
}

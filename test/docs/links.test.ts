/** Every relative link in README.md and docs/ leads somewhere: the file exists, and a `#anchor` names a heading of
 * that file (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens). Links to web addresses are not
 * followed. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** GitHub's anchor for a heading text. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings (outside code blocks). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const heading = !fence && /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]!));
  }
  return anchors;
}

/** The relative link targets of a markdown file (outside code blocks and inline code). */
export function linksOf(markdown: string): string[] {
  const links: string[] = [];
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    if (fence) continue;
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/i.test(m[1]!)) links.push(m[1]!);
    }
  }
  return links;
}

const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('links in README.md and docs/', () => {
  it('reads anchors and links as GitHub does', () => {
    expect(anchorOf('A five-minute tour')).toBe('a-five-minute-tour');
    expect(anchorOf('How `npm start` runs')).toBe('how-npm-start-runs');
    expect(linksOf('see [a](docs/a.md#x), `[b](c.md)`, [w](https://example.com)\n```\n[d](d.md)\n```')).toEqual(['docs/a.md#x']);
  });

  it.each(files)('%s: every relative link resolves', (file) => {
    const broken: string[] = [];
    for (const link of linksOf(readFileSync(join(root, file), 'utf8'))) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(root, file) : join(dirname(join(root, file)), path);
      if (!existsSync(target)) broken.push(`${link} (no file ${relative(root, target)})`);
      else if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link} (no heading #${anchor})`);
    }
    expect(broken).toEqual([]);
  });
});

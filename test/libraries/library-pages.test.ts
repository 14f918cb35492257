// The library pages are generated from runs (`npm run library-page`); these checks keep them from
// drifting: every library has a page and a room for its hand-written part, a page names the
// versions the project pins today, and the index is exactly what the pages' summaries make.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIBRARY_PAGES } from '../../src/libraries/library-pages.js';
import { LIBRARY_QUEUES, builtInQueue } from '../../src/libraries/registry.js';
import { libraryIndexMarkdown, type PageSummary } from '../../src/report/library-page.js';
import { pinnedVersions } from '../../scripts/pinned-versions.js';
import { ROOT } from '../support/run-node.js';

const DOCS = join(ROOT, 'docs/libraries');
const summary = (key: string): PageSummary =>
  JSON.parse(readFileSync(join(DOCS, `${key}.json`), 'utf8')) as PageSummary;

describe('library pages', () => {
  it('cover every library queue, each once, and each library has its room', () => {
    const paged = LIBRARY_PAGES.flatMap((p) => p.queues);
    for (const queue of paged) expect(builtInQueue(queue) ?? queue).not.toBe(queue);
    expect(new Set(paged).size).toBe(paged.length);
    for (const queue of LIBRARY_QUEUES) expect(paged).toContain(queue.name);
    for (const page of LIBRARY_PAGES) expect(existsSync(page.notes)).toBe(true);
  });

  it('are published for every library, at the versions the project pins today', () => {
    const pins = pinnedVersions();
    for (const page of LIBRARY_PAGES) {
      const markdown = readFileSync(join(DOCS, `${page.key}.md`), 'utf8');
      const { queues } = summary(page.key);
      expect(Object.keys(queues).sort()).toEqual([...page.queues].sort());
      for (const [queue, { version }] of Object.entries(queues)) {
        // A pin moved without the page being run again: `npm run library-page -- <key>`.
        expect(version, `${page.key}.md, --queue ${queue}`).toBe(pins[queue]);
        expect(markdown).toContain(`| version (\`--queue ${queue}\`) | ${version} |`);
      }
      expect(markdown).toContain(readFileSync(page.notes, 'utf8').trim());
    }
  });

  it("have an index that is exactly what the pages' summaries make", () => {
    const index = readFileSync(join(DOCS, 'README.md'), 'utf8');
    expect(index).toBe(libraryIndexMarkdown(LIBRARY_PAGES.map((p) => summary(p.key))));
  });
});

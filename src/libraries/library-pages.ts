/**
 * The real libraries leaseproof publishes a page for (`docs/libraries/<key>.md`): which built-in
 * queues a page's suite runs, and where the library's room keeps the hand-written part of its
 * page (what the library documents, what its users report upstream, what they should do). The
 * figures on a page — settings, verdicts, evidence, wall time — are never hand-written: the page
 * script (`npm run library-page`) runs the suite and writes them from that run.
 */
import { fileURLToPath } from 'node:url';

/** One library's page. */
export interface LibraryPage {
  /** The page's file name and the library's settings key, e.g. `river`. */
  key: string;
  /** The library's name as its users write it. */
  title: string;
  /** The built-in queues the page's suite runs, the library's main mapping first. */
  queues: readonly string[];
  /** The hand-written part of the page, in the library's room. */
  notes: string;
}

const notes = (key: string): string =>
  fileURLToPath(new URL(`../../src/libraries/${key}/page.md`, import.meta.url));

/** Every library page, in the README's order. */
export const LIBRARY_PAGES: readonly LibraryPage[] = Object.freeze(
  [
    { key: 'pg-boss', title: 'pg-boss', queues: ['pg-boss@12', 'pg-boss-native', 'pg-boss'] },
    {
      key: 'graphile-worker',
      title: 'graphile-worker',
      queues: ['graphile-worker-native', 'graphile-worker'],
    },
    { key: 'pgqueuer', title: 'pgqueuer', queues: ['pgqueuer', 'pgqueuer-statements'] },
    {
      key: 'procrastinate',
      title: 'procrastinate',
      queues: ['procrastinate', 'procrastinate-statements'],
    },
    { key: 'river', title: 'River', queues: ['river'] },
    { key: 'db-scheduler', title: 'db-scheduler', queues: ['db-scheduler'] },
  ].map((page) => ({ ...page, notes: notes(page.key) })),
);

/** The page of `key`, or undefined. */
export function libraryPage(key: string): LibraryPage | undefined {
  return LIBRARY_PAGES.find((p) => p.key === key);
}

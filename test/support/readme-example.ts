import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './run-node.js';

/**
 * The README's complete adapter example, cut out of the README text itself: the first
 * TypeScript block after "A complete adapter for a small queue of your own".
 */
export async function readmeAdapterExample(): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const intro = readme.indexOf('A complete adapter for a small queue of your own');
  if (intro < 0) throw new Error('README.md: the adapter example section is gone');
  const open = readme.indexOf('```ts\n', intro);
  const close = readme.indexOf('\n```\n', open);
  if (open < 0 || close < 0) throw new Error('README.md: no ```ts block after the adapter intro');
  return readme.slice(open + '```ts\n'.length, close + 1);
}

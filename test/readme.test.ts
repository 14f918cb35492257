import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/run-node.js';

const read = (file: string): Promise<string> => readFile(`${ROOT}${file}`, 'utf8');

describe('README', () => {
  it('opens with the two commands a newcomer runs', async () => {
    const lines = (await read('README.md')).split('\n').slice(0, 6).join('\n');
    expect(lines).toMatch(/^npm ci && npm run demo/m);
    expect(lines).toMatch(/^npm test/m);
  });

  it('shows examples/tiny-queue.ts as it is (it imports the package by name)', async () => {
    const readme = await read('README.md');
    const example = await read('examples/tiny-queue.ts');
    const block = /## Your queue under test[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("from 'leaseproof'");
    expect(block).toBe(example);
    // Small enough to read in one go, retries included.
    expect(example.split('\n').length).toBeLessThan(90);
  });
});

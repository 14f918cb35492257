// The README's adapter example is what a newcomer copies first: it must be exactly
// examples/tiny-queue.ts, which the tests load and judge and the package ships.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/run-node.js';
import { readmeAdapterExample } from '../support/readme-example.js';

describe("the README's adapter example", () => {
  it('is examples/tiny-queue.ts, which imports its types from the package by name', async () => {
    const example = await readFile(join(ROOT, 'examples', 'tiny-queue.ts'), 'utf8');
    expect(example).toContain("from 'leaseproof'");
    expect(await readmeAdapterExample()).toBe(example);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { loadQueueAdapter } from '../../src/libraries/load-adapter.js';
import { hasLeaseExtension } from '../../src/queue/lease-terms.js';
import type { QueueAdapter } from '../../src/queue/types.js';
import { leaseSemantics, useEnvironment } from './lease-semantics.js';

// The README's example adapter, loaded the way `--queue ./examples/tiny-queue.ts` loads it,
// must hold to the same lease semantics as the reference.
const env = useEnvironment();
let tiny: QueueAdapter | undefined;
beforeAll(async () => {
  tiny = await loadQueueAdapter('./examples/tiny-queue.ts');
});

describe('examples/tiny-queue.ts', () => {
  it('loads by path', () => {
    expect(tiny?.name).toBe('tiny');
  });

  leaseSemantics(env, () => {
    if (tiny === undefined || !hasLeaseExtension(tiny)) throw new Error('tiny has no extend()');
    return tiny;
  });
});

import { describe, expect, it } from 'vitest';
import { runHandler } from '../../src/worker/handler.js';
import type { HandlerPlan } from '../../src/worker/types.js';

const plan = (ignoresAbort: boolean): HandlerPlan => ({
  units: [0, 0, 0].map(() => ({ ms: 1, sync: false, effect: true })),
  failAttempts: 0,
  ignoresAbort,
});

/** Runs `plan` with its abort signal set before it starts; returns what the hooks saw. */
async function cancelled(p: HandlerPlan) {
  const seen: string[] = [];
  const abort = new AbortController();
  abort.abort();
  const result = await runHandler(p, abort.signal, {
    onUnit: (i) => seen.push(`unit ${i}`),
    onEffect: (i) => Promise.resolve(void seen.push(`effect ${i}`)),
    onAbort: (i) => seen.push(`abort ${i}`),
    onAbortIgnored: (i) => seen.push(`ignored ${i}`),
  });
  return { result, seen };
}

describe('runHandler', () => {
  it('stops at its first cancellation point once cancelled', async () => {
    expect(await cancelled(plan(false))).toEqual({
      result: { completed: false, abortedAtUnit: 0 },
      seen: ['abort 0'],
    });
  });

  it('with ignoresAbort runs on to its end, and says once where it ignored the cancellation', async () => {
    const { result, seen } = await cancelled(plan(true));
    expect(result).toEqual({ completed: true });
    expect(seen).toEqual([
      'ignored 0',
      'unit 0',
      'effect 0',
      'unit 1',
      'effect 1',
      'unit 2',
      'effect 2',
    ]);
  });
});

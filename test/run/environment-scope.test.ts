import { describe, expect, it } from 'vitest';
import type { EnvironmentProvider, StartedEnvironment } from '../../src/env/types.js';
import { inEnvironment } from '../../src/run/environment-scope.js';

/** A provider whose environment only counts its starts and stops. */
function countingProvider(options: { startFails?: boolean; stopFails?: boolean } = {}) {
  const counts = { starts: 0, stops: 0 };
  const env = {
    provider: 'external',
    stop: () => {
      counts.stops += 1;
      return options.stopFails === true
        ? Promise.reject(new Error('the server would not stop'))
        : Promise.resolve();
    },
  } as unknown as StartedEnvironment;
  const provider: EnvironmentProvider = {
    name: 'external',
    start: () => {
      counts.starts += 1;
      return options.startFails === true
        ? Promise.reject(new Error('no server'))
        : Promise.resolve(env);
    },
  };
  return { provider, env, counts };
}

describe('the environment scope', () => {
  it('starts, hands the environment to the work, and stops it once', async () => {
    const { provider, env, counts } = countingProvider();
    const lines: string[] = [];
    const result = await inEnvironment(
      provider,
      (given) => {
        expect(given).toBe(env);
        expect(counts).toEqual({ starts: 1, stops: 0 });
        return Promise.resolve(42);
      },
      { log: (line) => lines.push(line) },
    );
    expect(result).toBe(42);
    expect(counts).toEqual({ starts: 1, stops: 1 });
    expect(lines).toEqual(['starting the external environment…']);
  });

  it('stops it when the work throws, and throws what the work threw', async () => {
    const { provider, counts } = countingProvider();
    await expect(
      inEnvironment(provider, () => Promise.reject(new Error('the work failed'))),
    ).rejects.toThrow('the work failed');
    expect(counts.stops).toBe(1);
  });

  it('throws a failed start and runs nothing', async () => {
    const { provider, counts } = countingProvider({ startFails: true });
    let ran = false;
    await expect(inEnvironment(provider, () => Promise.resolve((ran = true)))).rejects.toThrow(
      'no server',
    );
    expect(ran).toBe(false);
    expect(counts.stops).toBe(0);
  });

  it('hands a failed stop to onStopError and keeps what the work returned', async () => {
    const { provider } = countingProvider({ stopFails: true });
    const failures: unknown[] = [];
    const result = await inEnvironment(provider, () => Promise.resolve('verdicts'), {
      onStopError: (error) => failures.push(error),
    });
    expect(result).toBe('verdicts');
    expect(failures).toEqual([new Error('the server would not stop')]);
    // Without onStopError, the failed stop is the scope's error.
    await expect(inEnvironment(provider, () => Promise.resolve('verdicts'))).rejects.toThrow(
      'the server would not stop',
    );
  });

  it('on an abort, stops at once without waiting for the work, and rejects with the reason', async () => {
    const { provider, counts } = countingProvider();
    const abort = new AbortController();
    const scope = inEnvironment(
      provider,
      () => {
        abort.abort('SIGINT');
        // Work that ignores the abort: the scope must not wait for it.
        return new Promise<never>(() => undefined);
      },
      { signal: abort.signal },
    );
    await expect(scope).rejects.toBe('SIGINT');
    expect(counts).toEqual({ starts: 1, stops: 1 });
  });

  it('starts nothing once aborted', async () => {
    const { provider, counts } = countingProvider();
    const abort = new AbortController();
    abort.abort('SIGTERM');
    await expect(
      inEnvironment(provider, () => Promise.resolve(1), { signal: abort.signal }),
    ).rejects.toBe('SIGTERM');
    expect(counts).toEqual({ starts: 0, stops: 0 });
  });

  it('stops servers that finish starting after an abort, before any work', async () => {
    const { provider, counts } = countingProvider();
    const abort = new AbortController();
    const slow: EnvironmentProvider = {
      name: provider.name,
      start: async () => {
        const env = await provider.start();
        abort.abort('SIGINT');
        return env;
      },
    };
    let ran = false;
    await expect(
      inEnvironment(slow, () => Promise.resolve((ran = true)), { signal: abort.signal }),
    ).rejects.toBe('SIGINT');
    expect(ran).toBe(false);
    expect(counts).toEqual({ starts: 1, stops: 1 });
  });
});

import { describe, expect, it } from 'vitest';
import {
  settingsLines,
  settleSettings,
  type LibrarySettingsSpec,
} from '../../src/queue/library-settings.js';

const LEASE = { durationMs: 1_000, heartbeatMs: 250, extendByMs: 1_000, pollMs: 50 };

// A library shaped like River: the lease stands for JobTimeout (1 min); the rescue after 1 h.
const SPEC: LibrarySettingsSpec = {
  library: 'demo',
  anchor: 'JobTimeout',
  settings: [
    { name: 'JobTimeout', kind: 'duration', default: 60_000, where: 'client.go' },
    { name: 'RescueStuckJobsAfter', kind: 'duration', default: 3_600_000, where: 'job_rescuer.go' },
    {
      name: 'FetchPollInterval',
      kind: 'duration',
      default: 1_000,
      where: 'client.go',
      floor: { ms: 10, why: 'a process cannot poll faster here', drives: 'I8' },
    },
    { name: 'MaxWorkers', kind: 'count', default: 1, where: 'client.go' },
    { name: 'rescuerInterval', kind: 'duration', default: 30_000, where: 'x.go', constant: true },
  ],
};

describe('settleSettings: one time factor for every duration', () => {
  it('compresses every duration by the lease ÷ the anchor, counts not at all', () => {
    const s = settleSettings(SPEC, LEASE);
    expect(s.k).toBeCloseTo(1 / 60);
    expect(s.values).toEqual({
      JobTimeout: 1_000,
      RescueStuckJobsAfter: 60_000,
      FetchPollInterval: 1_000 / 60,
      MaxWorkers: 1,
      rescuerInterval: 500,
    });
  });

  it("takes the user's values in the library's units, and the anchor sets k", () => {
    const s = settleSettings(SPEC, LEASE, { JobTimeout: '10m', RescueStuckJobsAfter: '30m' });
    expect(s.k).toBeCloseTo(1 / 600);
    expect(s.values.RescueStuckJobsAfter).toBeCloseTo(3_000);
    expect(s.settings.find((x) => x.name === 'JobTimeout')?.stated).toBe(true);
    expect(s.settings.find((x) => x.name === 'MaxWorkers')?.stated).toBe(false);
  });

  it('holds a value at its floor and says which invariants that drives', () => {
    const s = settleSettings(SPEC, LEASE, { JobTimeout: '1h' });
    const poll = s.settings.find((x) => x.name === 'FetchPollInterval')!;
    expect(poll.runValue).toBe(10);
    expect(poll.held?.drives).toBe('I8');
    expect(settingsLines(s).join('\n')).toMatch(/FetchPollInterval.*held at this floor.*drives I8/);
  });

  it('refuses a name the library lacks, a hard-coded constant, and a bad value', () => {
    expect(() => settleSettings(SPEC, LEASE, { JobTimout: '1m' }, 'f.yaml')).toThrow(
      /f\.yaml: demo has no setting "JobTimout"; its settings are JobTimeout, RescueStuckJobsAfter, FetchPollInterval, MaxWorkers/,
    );
    expect(() => settleSettings(SPEC, LEASE, { rescuerInterval: '1s' })).toThrow(/hard-coded/);
    expect(() => settleSettings(SPEC, LEASE, { JobTimeout: 'soon' })).toThrow(
      /setting JobTimeout: expected a positive duration/,
    );
    expect(() => settleSettings(SPEC, LEASE, { MaxWorkers: 0 })).toThrow(
      /whole number of at least 1/,
    );
  });

  it('keeps a duration the library leaves unset (None, no limit) unset: shown, not given', () => {
    const spec: LibrarySettingsSpec = {
      ...SPEC,
      settings: [
        ...SPEC.settings,
        { name: 'shutdownTimeout', kind: 'duration', default: Infinity, where: 'worker.py' },
      ],
    };
    const s = settleSettings(spec, LEASE);
    expect(s.values).not.toHaveProperty('shutdownTimeout');
    expect(settingsLines(s).join('\n')).toMatch(
      /shutdownTimeout: none in demo .*, none in this run/,
    );
    const stated = settleSettings(spec, LEASE, { shutdownTimeout: '2m' });
    expect(stated.values.shutdownTimeout).toBeCloseTo(2_000);
  });

  it('computes a default from other values, and refuses what the library refuses', () => {
    const spec: LibrarySettingsSpec = {
      ...SPEC,
      settings: SPEC.settings.map((x) =>
        x.name === 'RescueStuckJobsAfter'
          ? { ...x, defaultFrom: (v) => Math.max(3_600_000, (v.JobTimeout ?? 0) + 3_600_000) }
          : x,
      ),
      refuse: (v) =>
        (v.RescueStuckJobsAfter ?? 0) < (v.JobTimeout ?? 0) ? 'rescue before timeout' : undefined,
    };
    // Unstated: the library's rule; stated: the user's value, and the refusal applies.
    expect(settleSettings(spec, LEASE, { JobTimeout: '2h' }).values.RescueStuckJobsAfter).toBe(
      1_500,
    );
    expect(
      settleSettings(spec, LEASE, { RescueStuckJobsAfter: '2m' }).values.RescueStuckJobsAfter,
    ).toBe(2_000);
    expect(() => settleSettings(spec, LEASE, { RescueStuckJobsAfter: '30s' }, 'x.yaml')).toThrow(
      /x\.yaml: demo refuses these settings: rescue before timeout/,
    );
  });
});

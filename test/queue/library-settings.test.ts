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

// A library shaped like db-scheduler: the lease is heartbeatInterval × missedHeartbeatsLimit, and
// its detector runs every 2 × heartbeatInterval, a relation it hard-codes.
const DERIVED: LibrarySettingsSpec = {
  library: 'demo-derived',
  anchor: {
    words: 'heartbeatInterval × missedHeartbeatsLimit',
    ms: (v) => v.heartbeatInterval! * v.missedHeartbeatsLimit!,
  },
  settings: [
    { name: 'heartbeatInterval', kind: 'duration', default: 300_000, where: 'b.java' },
    { name: 'missedHeartbeatsLimit', kind: 'count', default: 6, where: 'b.java', min: 4 },
    {
      name: 'detectDeadInterval',
      kind: 'duration',
      default: 600_000,
      where: 's.java',
      constant: true,
      defaultFrom: (v) => 2 * v.heartbeatInterval!,
      relation: '2 × heartbeatInterval',
    },
  ],
};

describe('settleSettings: a constant the library derives from its settings', () => {
  it('derives it from the deployed values, then compresses it by the same k', () => {
    const s = settleSettings(DERIVED, LEASE);
    expect(s.values).toEqual({
      heartbeatInterval: 1_000 / 6,
      missedHeartbeatsLimit: 6,
      detectDeadInterval: 2_000 / 6,
    });
    // A stated heartbeat moves it too: 1 min × 10 = the lease, the detector every 2 min = 1/5.
    const stated = settleSettings(DERIVED, LEASE, {
      heartbeatInterval: '1m',
      missedHeartbeatsLimit: 10,
    });
    expect(stated.values.detectDeadInterval).toBeCloseTo(200);
    expect(stated.settings.find((x) => x.name === 'detectDeadInterval')?.library).toBe('2m');
    expect(settingsLines(stated).join('\n')).toMatch(
      /detectDeadInterval: 2m in demo-derived \(hard-coded, s\.java\), 200ms in this run; 2 × heartbeatInterval/,
    );
  });

  it('refuses it stated, naming the relation', () => {
    expect(() => settleSettings(DERIVED, LEASE, { detectDeadInterval: '1m' })).toThrow(
      /detectDeadInterval is hard-coded in the library \(s\.java\)/,
    );
  });
});

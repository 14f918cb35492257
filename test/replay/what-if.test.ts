import { describe, expect, it } from 'vitest';
import { loadIncident } from '../../src/replay/load-incident.js';
import { parseSweep, renderWhatIf } from '../../src/replay/what-if.js';

describe('replay --sweep (what-if)', () => {
  it('reads ranges and lists of leases, and refuses anything else with what it takes', () => {
    expect(parseSweep('lease=20s..60s')).toEqual([20_000, 30_000, 40_000, 50_000, 60_000]);
    expect(parseSweep('lease=20s..60s:3')).toEqual([20_000, 40_000, 60_000]);
    expect(parseSweep('lease=30s,1m')).toEqual([30_000, 60_000]);
    for (const bad of ['heartbeat=1s', 'lease=60s..20s', 'lease=20s..60s:1', 'lease=soon']) {
      expect(() => parseSweep(bad)).toThrow(/--sweep takes lease=<from>\.\.<to>\[:<count>\]/);
    }
  });

  it('replays the same timeline under another lease, heartbeat and extension in proportion', async () => {
    const base = await loadIncident('scenarios/incidents/gc-pause-late-ack.yaml');
    const longer = await loadIncident('scenarios/incidents/gc-pause-late-ack.yaml', {
      leaseMs: 60_000,
    });
    expect(base.scenario.lease).toMatchObject({ durationMs: 1_000, heartbeatMs: 333.333 });
    expect(longer.scenario.lease).toMatchObject({ durationMs: 2_000, heartbeatMs: 666.667 });
    expect(longer.scenario.faults).toEqual(base.scenario.faults);
  });

  it('says which leases avoided the duplicates', () => {
    const text = renderWhatIf([
      { leaseMs: 20_000, verdict: 'valid', duplicatedJobs: 1, staleWrites: 0, maxStallMs: 21_396 },
      { leaseMs: 60_000, verdict: 'valid', duplicatedJobs: 0, staleWrites: 0, maxStallMs: NaN },
    ]);
    expect(text).toMatch(/^20s +1 +0 +21\.396s +valid$/m);
    expect(text).toMatch(/without duplicates: lease 1m/);
  });
});

import { describe, expect, it } from 'vitest';
import {
  formatIncidentTime,
  formatTimeScale,
  incidentOffset,
  parseStamp,
  parseTimeScale,
} from '../../src/replay/incident-time.js';
import { loadIncident, parseIncident } from '../../src/replay/load-incident.js';
import { ScenarioError } from '../../src/scenario/scenario-error.js';

const START = Date.parse('2026-03-14T14:02:00Z');

const BASE = `name: t
start: 2026-03-14T14:02:00Z
timeScale: 1/30
lease: { duration: 30s, heartbeat: 10s }
workers: [worker-a, worker-b]
jobs: { count: 4, handler: { units: 2, p50: 3s, p999: 9s } }
timeline:
  - { at: '14:02:11', gc-pause: { worker: worker-b, for: 38s } }
  - { at: '+60s', partition: { workers: [worker-a], for: 9s } }
`;

function incidentError(text: string): ScenarioError {
  try {
    parseIncident(text, 'incident.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toMatch(/^invalid incident file incident\.yaml/);
    return error as ScenarioError;
  }
  throw new Error('expected the incident to be refused');
}

describe("an incident's clock", () => {
  it('reads ISO stamps, times of day on the start date, and offsets', () => {
    expect(parseStamp('2026-03-14T14:02:00Z')).toBe(START);
    expect(parseStamp('2026-03-14T16:02:00+02:00')).toBe(START);
    expect(incidentOffset('14:02:11', START)).toBe(11_000);
    expect(incidentOffset('14:02:11.250', START)).toBe(11_250);
    expect(incidentOffset('2026-03-14T14:03:00Z', START)).toBe(60_000);
    expect(incidentOffset('+1m30s', START)).toBe(90_000);
    expect(() => incidentOffset('14:01:59', START)).toThrow(/at or after the incident's start/);
    expect(() => incidentOffset('14:61:00', START)).toThrow(/a time of day HH:MM:SS/);
    expect(() => incidentOffset('yesterday', START)).toThrow(/an ISO 8601 stamp, HH:MM:SS/);
    expect(() => parseStamp('2026-13-14T14:02:00Z')).toThrow(/a real date and time/);
  });

  it('reads time scales, and prints times back in the incident clock', () => {
    expect(parseTimeScale('1/30')).toBeCloseTo(1 / 30, 12);
    expect(parseTimeScale(0.05)).toBe(0.05);
    expect(parseTimeScale('1')).toBe(1);
    expect(() => parseTimeScale('2')).toThrow(/a time scale in \(0, 1\]/);
    expect(() => parseTimeScale('fast')).toThrow(/a time scale/);
    expect(formatIncidentTime(START + 39_100, START)).toBe('14:02:39.100');
    expect(formatIncidentTime(START + 39_000, START)).toBe('14:02:39');
    expect(formatIncidentTime(START + 86_400_000, START)).toBe('2026-03-15 14:02:00');
  });
});

describe('time scales for people', () => {
  it('print as the file wrote them: a fraction stays a fraction, a decimal is short', () => {
    expect(formatTimeScale('1/30')).toBe('1/30');
    expect(formatTimeScale(' 1 / 30 ')).toBe('1/30');
    expect(formatTimeScale('1.0/30')).toBe('1/30');
    expect(formatTimeScale('0.050')).toBe('0.05');
    expect(formatTimeScale(0.05)).toBe('0.05');
    expect(formatTimeScale(1)).toBe('1');
  });

  it('are what an incident reports, not 0.03333333333333333', () => {
    const incident = parseIncident(BASE, 'incident.yaml');
    expect(incident.timeScale).toBeCloseTo(1 / 30, 12);
    expect(incident.timeScaleText).toBe('1/30');
    expect(incident.document.description).toMatch(/replayed at time scale 1\/30 \(/);
    const decimal = parseIncident(BASE.replace('timeScale: 1/30', 'timeScale: 0.050'));
    expect(decimal.timeScaleText).toBe('0.05');
  });
});

describe('incident files', () => {
  it('compress every duration by the time scale and map named workers onto slots', () => {
    const incident = parseIncident(BASE, 'incident.yaml');
    expect(incident.workers).toEqual(['worker-a', 'worker-b']);
    expect(incident.startMs).toBe(START);
    expect(incident.scenario.lease).toMatchObject({ durationMs: 1_000, heartbeatMs: 333.333 });
    expect(incident.document.faults).toEqual([
      { at: '366.667ms', pause: { worker: 2, for: '1.267s' } },
      { at: '2s', partition: { workers: [1], mode: 'blackhole', for: '300ms' } },
    ]);
    expect(incident.events.map((e) => [e.atMs, e.label])).toEqual([
      [11_000, 'gc-pause of worker-b for 38s'],
      [60_000, 'partition for 9s'],
    ]);
  });

  it('turn a deploy into staggered restarts and a failover into a database fault', async () => {
    const incident = await loadIncident('scenarios/incidents/failover-during-heartbeats.yaml');
    expect(incident.document.faults).toEqual([
      { at: '1s', 'db-restart': { mode: 'restart', for: '1.333s' } },
      { at: '3.5s', crash: { worker: 1, restartAfter: '333.333ms' } },
      { at: '3.667s', crash: { worker: 2, restartAfter: '333.333ms' } },
      { at: '3.833s', crash: { worker: 3, restartAfter: '333.333ms' } },
    ]);
    const pause = await loadIncident('scenarios/incidents/gc-pause-late-ack.yaml');
    expect(pause.scenario.faults).toHaveLength(1);
  });

  it('scale a clock drift so that the same error builds up at the same incident moments', () => {
    const incident = parseIncident(
      BASE.replace(
        "  - { at: '+60s', partition: { workers: [worker-a], for: 9s } }",
        "  - { at: '+60s', clock-drift: { worker: worker-a, ppm: 500 } }",
      ),
      'incident.yaml',
    );
    expect((incident.document.faults as unknown[])[1]).toEqual({
      at: '2s',
      clock: { worker: 1, offset: '0ms', driftPpm: 15_000 },
    });
  });

  it('name the file, the place and what was expected: bad stamps, order, unknown workers', () => {
    const stamp = incidentError(BASE.replace("'14:02:11'", "'14:62:11'"));
    expect(stamp.problems[0]).toMatchObject({ path: 'timeline[0].at', line: 8 });
    expect(stamp.message).toMatch(/timeline\[0\]\.at: found "14:62:11"; expected a time of day/);
    const order = incidentError(BASE.replace("'+60s'", "'+5s'"));
    expect(order.message).toMatch(
      /timeline\[1\]\.at: found "\+5s"; expected a time at or after the previous event's/,
    );
    const name = incidentError(BASE.replace('worker: worker-b', 'worker: worker-z'));
    expect(name.message).toMatch(
      /timeline\[0\]\.gc-pause\.worker: found "worker-z"; expected one of the incident's workers \(worker-a, worker-b\)/,
    );
    const unknown = incidentError(BASE.replace('gc-pause:', 'gc-paws:'));
    expect(unknown.problems.length).toBeGreaterThan(0);
    const scale = incidentError(BASE.replace('timeScale: 1/30', 'timeScale: 30'));
    expect(scale.message).toMatch(/timeScale: found 30; expected a time scale in \(0, 1\]/);
  });
});

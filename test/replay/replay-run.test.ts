// One real replay of a worked incident: the narrative, in the incident's clock and names, must
// name the job that ran twice — the one worker-b held when its GC pause began.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveHistory } from '../../src/history/derive.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { loadIncident } from '../../src/replay/load-incident.js';
import { incidentClock, jobStories, renderNarrative } from '../../src/replay/narrative.js';
import { runAndCheck } from '../../src/scenario/run-and-check.js';
import { scenarioToRunPlan } from '../../src/scenario/load-scenario.js';
import { buildTimelineData } from '../../src/report/timeline-data.js';
import { renderTimelineHtml } from '../../src/report/timeline-html.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

describe('leaseproof replay', () => {
  it('tells the duplicate of the job worker-b held during its GC pause, in the incident clock', async () => {
    const incident = await loadIncident('scenarios/incidents/gc-pause-late-ack.yaml');
    const { history, result } = await runAndCheck(
      env,
      scenarioToRunPlan(incident.scenario, { queue: 'reference' }),
    );
    // The truth, from the history: w2 (worker-b) held a claim that expired during the pause.
    const derived = deriveHistory(history);
    const expired = derived.claims.find((c) => c.worker === 'w2' && !Number.isNaN(c.expiredAt));
    expect(expired, 'worker-b lost a claim in its pause').toBeDefined();
    const stories = jobStories(history, result, incident);
    const story = stories.find((s) => s.job === expired!.job.id);
    expect(story?.line).toMatch(
      new RegExp(`^job ${expired!.job.id}: claimed by worker-b 14:0\\d:`),
    );
    expect(story?.line).toMatch(/lease expired 14:0\d:\d\d(\.\d+)? during pause of worker-b/);
    expect(story?.outcome).toBe('duplicate explained');
    // The job was done in the end, by whoever claimed it again.
    expect(story?.line).toMatch(/'s ack 14:0\d:\d\d(\.\d+)? committed/);
    expect(renderNarrative(stories)).toMatch(/^duplicate explained \(\d+\):$/m);
    // The clock is the incident's: the pause began at 14:02:11.
    const clock = incidentClock(history, incident);
    const pause = history.events.find((e) => e.type === 'nemesis' && e.phase === 'start');
    expect(clock.text(pause!.t)).toBe('14:02:11');
    // The timeline page shows the same clock and the incident's worker names.
    const data = buildTimelineData(history, result, incident.name, incident);
    expect(data.incident).toMatchObject({
      anchorEpochMs: Date.parse('2026-03-14T14:02:11Z'),
      scale: 1 / 30,
      scaleText: '1/30',
      names: { w1: 'worker-a', w2: 'worker-b', w3: 'worker-c' },
    });
    expect(data.incident?.anchorRel).toBeCloseTo(pause!.t - history.header.startedAt, 2);
    expect(renderTimelineHtml(data)).toContain("the incident's clock");
  }, 120_000);
});

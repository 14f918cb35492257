// A replayed incident's timeline speaks the incident's clock: its header gives the incident's
// own lease and length (not the compressed ones it ran with), its violation list and axis the
// incident's times, and its key says so.
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/checker/index.js';
import { loadIncident } from '../../src/replay/load-incident.js';
import { buildTimelineData } from '../../src/report/timeline-data.js';
import { renderTimelineHtml } from '../../src/report/timeline-html.js';
import type { TimelineData } from '../../src/report/timeline-types.js';
import { HistoryBuilder } from '../checker/fixtures/history-builder.js';
import { runPageScripts } from '../support/page-script.js';

/**
 * gc-pause-late-ack at 1/30, by hand: worker-b (w2) pauses 38 s (1266.667 ms replayed) from
 * 14:02:11 holding the job, worker-a re-claims it, and worker-b acks late, at 14:02:50.
 */
async function replayData(): Promise<TimelineData> {
  const incident = await loadIncident('scenarios/incidents/gc-pause-late-ack.yaml');
  const b = new HistoryBuilder(['w1', 'w2'], { lease: incident.scenario.lease });
  b.enqueue('j', 0).grant('j', 'w2', 'a', 0);
  b.fault('pause', 'w2', 100, 1366.667);
  b.grant('j', 'w1', 'b', 1100).ack('j', 'w2', 1400, 'a');
  const history = b.end(2000).build();
  return buildTimelineData(history, checkHistory(history), incident.name, incident);
}

async function replayPage(): Promise<string> {
  return renderTimelineHtml(await replayData());
}

describe("a replayed incident's timeline", () => {
  it("heads with the incident's lease and length, and the replay's beside them", async () => {
    const html = await replayPage();
    const meta = /<p class="meta">(.*?)<\/p>/.exec(html)![1]!;
    expect(meta).toContain(
      "in the incident's time: lease 30s, heartbeat 10s, extend by 30s, poll 1s · 1m long",
    );
    expect(meta).toContain('replayed 30× faster (lease 1000ms, 2000ms long)');
    expect(meta).not.toMatch(/heartbeat 333/);
  });

  it("lists violations and keys the times in the incident's clock", async () => {
    const data = await replayData();
    const html = renderTimelineHtml(data);
    // The pause began at 14:02:11, +100 ms into the replay; each replayed ms is 30 of its own.
    const marker = data.markers.find((m) => m.severity === 'violation')!;
    const at = new Date(Date.parse('2026-03-14T14:02:11Z') + Math.round((marker.t - 100) * 30));
    expect(at.toISOString()).toMatch(/T14:02:50\.\d{3}Z$/); // the late ack
    expect(html).toContain(`</span> job j at ${at.toISOString().slice(11, 23)}: `);
    // (The checkers' own sentences after it still speak the replay's ms.)
    expect(/<section id="verdict">(.*?)<\/section>/s.exec(html)![1]).not.toMatch(/job j at \+/);
  });

  it("labels the axis in the incident's clock", async () => {
    const option = runPageScripts(await replayPage())[0]!.options[0] as {
      xAxis: { name: string; axisLabel: { formatter: (v: number) => string } };
    };
    expect(option.xAxis.name).toBe("the incident's clock, UTC (replayed 30× faster)");
    expect(option.xAxis.axisLabel.formatter(100)).toBe('14:02:11');
    expect(option.xAxis.axisLabel.formatter(1400)).toBe('14:02:50');
    expect(option.xAxis.axisLabel.formatter(105)).toBe('14:02:11.150');
  });
});

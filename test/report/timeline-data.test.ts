import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/checker/index.js';
import { buildTimelineData } from '../../src/report/timeline-data.js';
import { cleanRun, staleAckAfterReclaimBothComplete } from '../checker/fixtures/anomalies.js';
import { HistoryBuilder } from '../checker/fixtures/history-builder.js';
import { oddStaleAck } from './fixtures.js';

const timelineOf = (history = staleAckAfterReclaimBothComplete()) =>
  buildTimelineData(history, checkHistory(history));

describe('timeline data', () => {
  it('puts a marker for each violation at the offending event, on its actor’s lane', () => {
    const data = timelineOf();
    expect(data.verdict).toBe('invalid');
    expect(data.lanes.map((l) => l.id)).toEqual(['w1', 'w2']);
    expect(data.markers.map((m) => [m.id, m.severity, m.invariant, m.job])).toEqual([
      ['v-no-stale-ack-1', 'violation', 'I1', '1'],
      ['v-single-completion-1', 'violation', 'I2', '1'],
    ]);
    // The stale ack: w1's ack at +405 ms (audit t = +405.05), on w1's lane.
    const [staleAck] = data.markers;
    expect(staleAck).toMatchObject({ t: 405.05, lane: 0, row: 0 });
    expect(staleAck!.cited.map((c) => c.role)).toContain('ack committed by w1');
    expect(staleAck!.faults).toEqual(['pause on w1 (f1) from +20ms to +400ms']);
  });

  it('draws claims as bars ending at their close or expiry, with heartbeats, acks, expiries and faults', () => {
    const data = timelineOf();
    expect(data.claims.map((c) => [c.lane, c.job, c.attempt, c.start, c.end, c.ended])).toEqual([
      [0, '1', 1, 0.05, 200, 'expired'],
      [1, '1', 2, 210.05, 300.05, 'acked'],
    ]);
    // w1 kept working after its claim expired: its late ack is the zombie's tail.
    expect(data.claims[0]!.zombieEnd).toBe(405.05);
    const kinds = data.points.map((p) => `${p.kind}@${p.lane}:${p.t}`);
    expect(kinds).toEqual(expect.arrayContaining(['expiry@0:200', 'ack@1:300.05', 'ack@0:405.05']));
    expect(data.points.filter((p) => p.kind === 'effect')).toHaveLength(2);
    expect(data.faults).toEqual([
      expect.objectContaining({
        lane: 0,
        fault: 'pause',
        target: 'w1',
        start: 20,
        end: 400,
        open: false,
      }),
    ]);
  });

  it('draws harness starvation as a band on the starved worker’s lane, unless a fault on it explains it', () => {
    const b = new HistoryBuilder();
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).ack('1', 'w1', 150, 'a');
    b.say('w2', 120, 'starved', { thread: 'heartbeat', ms: 80 });
    b.fault('pause', 'w1', 10, 60).say('w1', 50, 'starved', { thread: 'main', ms: 30 });
    const data = timelineOf(b.end(200).build());
    expect(data.starved).toEqual([
      { lane: 1, worker: 'w2', thread: 'heartbeat', start: 40, end: 120, ms: 80 },
    ]);
  });

  it('spans database faults across every lane, marks rejected acks and heartbeats', () => {
    const data = timelineOf(oddStaleAck());
    expect(data.faults.find((f) => f.fault === 'db-restart')).toMatchObject({
      lane: null,
      target: 'db',
    });
    const kinds = new Set(data.points.map((p) => p.kind));
    expect([...kinds]).toEqual(
      expect.arrayContaining(['heartbeat', 'ack-rejected', 'ack', 'expiry', 'effect']),
    );
    expect(data.points.find((p) => p.kind === 'ack-rejected')!.text).toMatch(/rejected <&"'>/);
  });

  it('gives an overlapping claim of the same worker its own row', () => {
    // w1's claim on job 1 expires at +200 but its handler runs on to +400; meanwhile it
    // claims job 2 at +300.
    const b = new HistoryBuilder(['w1']);
    b.enqueue('1', 0).enqueue('2', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1, 400);
    b.grant('2', 'w1', 'b', 300).ack('2', 'w1', 350, 'b');
    const data = timelineOf(b.end(500).build());
    expect(data.lanes).toEqual([{ id: 'w1', rows: 2 }]);
    expect(data.claims.map((c) => [c.job, c.row])).toEqual([
      ['1', 0],
      ['2', 1],
    ]);
  });

  it('shows warnings’ examples as warning markers and a clean run with none', () => {
    expect(timelineOf(cleanRun()).markers).toEqual([]);
    const b = new HistoryBuilder();
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1, 10);
    b.grant('1', 'w2', 'b', 210).ack('1', 'w2', 220, 'b');
    const data = timelineOf(b.end(300).build());
    expect(data.markers.map((m) => [m.id, m.severity])).toEqual([
      ['w-explained-expiry-1', 'warning'],
    ]);
  });
});

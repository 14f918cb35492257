import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { planMerge, type ShardRun } from '../../src/report/merge-plan.js';
import { mergeRuns } from '../../src/report/merge-runs.js';
import type { RunReport, ScenarioRun } from '../../src/report/types.js';
import type { VerdictFile } from '../../src/report/verdict-types.js';
import { writeRunReport } from '../../src/report/write-run-report.js';
import { describePlan } from '../../src/scale-out/plan-info.js';
import { shardPositions, type Shard } from '../../src/scale-out/shard.js';
import { cleanRun } from '../checker/fixtures/anomalies.js';
import { mixedRun, renamed, scenario } from './fixtures.js';

const tmp = (): Promise<string> => mkdtemp(join(tmpdir(), 'leaseproof-merge-'));

/**
 * The fixture run as a plan: mixedRun's four scenarios plus "clean" against a second queue, so
 * that one name occurs twice in the whole plan (labels then carry the queue) but once per shard.
 */
function plannedRuns(): ScenarioRun[] {
  return [...mixedRun().scenarios, scenario(renamed(cleanRun(), 'clean', 'unconditional-ack'))].map(
    (run, position) => ({ ...run, position }),
  );
}

function planOf(runs: readonly ScenarioRun[], shard: Shard, epsilonMs?: number) {
  return describePlan(
    runs.map((r) => ({
      name: r.history.header.scenario,
      queue: r.history.header.queue,
      seed: r.history.header.seed,
      body: { name: r.history.header.scenario },
    })),
    shard,
    epsilonMs,
  );
}

/** Writes the plan's run unsharded, or shard i of n of it, as `suite` would. */
async function writeShard(
  dir: string,
  shard: Shard,
  epsilonMs?: number,
  expectations?: RunReport['expectations'],
): Promise<string> {
  const all = plannedRuns();
  const report: RunReport = {
    ...mixedRun(),
    id: `run-${shard.index}-of-${shard.count}`,
    scenarios: shardPositions(all.length, shard).map((p) => all[p]!),
    plan: planOf(all, shard, epsilonMs),
    ...(expectations && { expectations }),
  };
  const folder = join(dir, report.id);
  await writeRunReport(folder, report);
  return folder;
}

const readVerdict = async (dir: string): Promise<VerdictFile> =>
  JSON.parse(await readFile(join(dir, 'verdict.json'), 'utf8')) as VerdictFile;

describe('leaseproof merge', () => {
  it('merges shards 1/2 and 2/2 into the verdict the unsharded run wrote: order, labels, files', async () => {
    const dir = await tmp();
    const whole = await readVerdict(await writeShard(join(dir, 'whole'), { index: 1, count: 1 }));
    await writeShard(join(dir, 'shards', 'a'), { index: 2, count: 2 });
    await writeShard(join(dir, 'shards', 'b'), { index: 1, count: 2 });
    const merged = await mergeRuns([join(dir, 'shards')], join(dir, 'merged'));
    expect(merged.verdict.scenarios).toEqual(whole.scenarios);
    expect(merged.verdict.verdict).toBe(whole.verdict);
    expect(merged.verdict.plan).toEqual(whole.plan);
    expect(merged.verdict.mergedFrom?.map((m) => m.shard)).toEqual([
      { index: 2, count: 2 },
      { index: 1, count: 2 },
    ]);
    // The labels are the whole plan's: "clean" runs against two queues in it.
    expect(whole.scenarios.map((s) => s.label)).toContain('clean [reference]');
    // Every file the merged verdict names is there, with the shard's bytes.
    const files = await readdir(merged.dir);
    for (const s of merged.verdict.scenarios) {
      expect(files).toContain(s.files.history);
      expect(files).toContain(s.files.timeline);
    }
    expect(files).toEqual(expect.arrayContaining(['verdict.json', 'summary.md', 'junit.xml']));
    const history = merged.verdict.scenarios[0]!.files.history;
    expect(await readFile(join(merged.dir, history))).toEqual(
      await readFile(join(dir, 'whole', 'run-1-of-1', history)),
    );
    expect(await readFile(merged.index, 'utf8')).toContain(merged.verdict.runId);
  });

  it("judges the shards' --expect again over the merged run, and says when shards differ", async () => {
    const dir = await tmp();
    const expect1 = [{ queue: 'unconditional-ack', verdict: 'invalid' }] as const;
    const a = await writeShard(join(dir, 'a'), { index: 1, count: 2 }, undefined, expect1);
    const b = await writeShard(join(dir, 'b'), { index: 2, count: 2 }, undefined, expect1);
    // Each shard judged only its own scenarios: one holds both runs of the queue, the other
    // none (not judged there).
    const shards = [await readVerdict(a), await readVerdict(b)];
    expect(shards.map((v) => v.expectations?.items[0]?.actual).sort()).toEqual([
      'invalid',
      'not-run',
    ]);
    const merged = await mergeRuns([a, b], join(dir, 'merged'));
    expect(merged.verdict.expectations).toMatchObject({
      outcome: 'met',
      items: [{ queue: 'unconditional-ack', actual: 'invalid', scenarios: 2, met: true }],
    });
    expect(merged.notes).toEqual([]);
    expect(await readFile(join(merged.dir, 'summary.md'), 'utf8')).toContain(
      'Expectations met: unconditional-ack invalid',
    );
    expect(await readFile(merged.index, 'utf8')).toContain(
      'expectations met: unconditional-ack invalid',
    );
    // A shard without --expect (or written before expectations existed) still merges.
    const c = await writeShard(join(dir, 'c'), { index: 2, count: 2 });
    const mixed = await mergeRuns([a, c], join(dir, 'merged2'));
    expect(mixed.verdict.expectations?.outcome).toBe('met');
    expect(mixed.notes.join('\n')).toMatch(/different --expect/);
  });

  it('does not merge its own earlier output back in when given the whole reports folder', async () => {
    const dir = await tmp();
    await writeShard(join(dir, 'reports'), { index: 1, count: 2 });
    await writeShard(join(dir, 'reports'), { index: 2, count: 2 });
    const first = await mergeRuns([join(dir, 'reports')], join(dir, 'reports', 'merged'));
    const second = await mergeRuns([join(dir, 'reports')], join(dir, 'reports', 'merged'));
    expect(second.verdict.scenarios).toEqual(first.verdict.scenarios);
    expect(second.verdict.mergedFrom).toHaveLength(2);
  });

  it('names a missing shard', async () => {
    const dir = await tmp();
    await writeShard(dir, { index: 1, count: 3 });
    await writeShard(dir, { index: 3, count: 3 });
    await expect(mergeRuns([dir], join(dir, 'merged'))).rejects.toThrow(
      /shard 2\/3 missing: none of the folders given holds it \(found 1\/3, 3\/3\)/,
    );
  });

  it('refuses a shard given twice, naming both folders', async () => {
    const a = await tmp();
    const b = await tmp();
    await writeShard(a, { index: 1, count: 2 });
    await writeShard(a, { index: 2, count: 2 });
    await writeShard(b, { index: 2, count: 2 });
    await expect(mergeRuns([a, b], join(a, 'merged'))).rejects.toThrow(
      /shard 2\/2 was given twice \(.*run-2-of-2, .*run-2-of-2\)/,
    );
  });

  it('refuses shards of different plans (another --epsilon here)', async () => {
    const dir = await tmp();
    await writeShard(join(dir, 'x'), { index: 1, count: 2 });
    await writeShard(join(dir, 'y'), { index: 2, count: 2 }, 50);
    await expect(mergeRuns([dir], join(dir, 'merged'))).rejects.toThrow(
      /these runs are not shards of one plan/,
    );
  });

  it('refuses a folder without runs and a verdict file of another version, naming them', async () => {
    const dir = await tmp();
    await expect(mergeRuns([dir], join(dir, 'merged'))).rejects.toThrow(
      new RegExp(`no run folder \\(one holding verdict.json\\) in ${dir}`),
    );
    await writeFile(join(dir, 'verdict.json'), JSON.stringify({ verdictVersion: 99 }));
    await expect(mergeRuns([dir], join(dir, 'merged'))).rejects.toThrow(
      /verdict.json: verdict version 99, expected 1/,
    );
  });

  it('refuses a shard whose verdict lists a file it does not hold', async () => {
    const dir = await tmp();
    const one = await writeShard(dir, { index: 1, count: 1 });
    const verdict = await readVerdict(one);
    verdict.scenarios[0]!.files.history = 'gone.history.jsonl';
    await writeFile(join(one, 'verdict.json'), JSON.stringify(verdict));
    await expect(mergeRuns([one], join(dir, 'merged'))).rejects.toThrow(
      /gone.history.jsonl: the shard's verdict.json lists it but it cannot be copied/,
    );
  });
});

describe('planMerge', () => {
  const shardRun = (index: number, count: number, positions: number[]): ShardRun => {
    const all = plannedRuns();
    return {
      dir: `/r/${index}`,
      verdict: {
        verdictVersion: 1,
        runId: `r${index}`,
        startedAt: `2025-01-01T00:0${index}:00.000Z`,
        finishedAt: `2025-01-01T00:0${index}:30.000Z`,
        verdict: 'valid',
        environment: {
          provider: 'embedded',
          leaseproof: 't',
          postgres: 't',
          toxiproxy: 't',
          node: 't',
          platform: 't',
        },
        scenarios: positions.map((position) => ({
          label: all[position]!.history.header.scenario,
          name: all[position]!.history.header.scenario,
          queue: all[position]!.history.header.queue,
          seed: 1,
          verdict: position === 0 ? 'invalid' : 'valid',
          lease: all[position]!.history.header.lease,
          historyStartedAt: 0,
          durationMs: 1,
          complete: true,
          drained: true,
          events: 1,
          options: { epsilonMs: 5, staleAck: 'strict', strictCauses: false, maxEvidence: 10 },
          checkers: [],
          files: { history: `s${position}.history.jsonl`, timeline: `s${position}.timeline.html` },
          position,
        })),
        interrupted: null,
        plan: { shard: { index, count }, size: 5, fingerprint: 'f' },
      },
    };
  };

  it('orders by plan position, takes the worst verdict, the first start and the last finish', () => {
    const plan = planMerge([shardRun(2, 2, [1, 3]), shardRun(1, 2, [0, 2, 4])], 'm');
    expect(plan.verdict.scenarios.map((s) => s.position)).toEqual([0, 1, 2, 3, 4]);
    expect(plan.scenarios.map((s) => s.fromDir)).toEqual(['/r/1', '/r/2', '/r/1', '/r/2', '/r/1']);
    expect(plan.verdict.verdict).toBe('invalid');
    expect(plan.verdict.startedAt).toBe('2025-01-01T00:01:00.000Z');
    expect(plan.verdict.finishedAt).toBe('2025-01-01T00:02:30.000Z');
  });

  it('refuses a position held twice or outside the plan (an edited file)', () => {
    expect(() => planMerge([shardRun(1, 2, [0, 2, 4]), shardRun(2, 2, [1, 2])], 'm')).toThrow(
      /has position 2, expected a position of the 5-run plan not held by another scenario/,
    );
    const outside = shardRun(2, 2, [1, 3]);
    outside.verdict.scenarios[1]!.position = 7;
    expect(() => planMerge([shardRun(1, 2, [0, 2, 4]), outside], 'm')).toThrow(ConfigError);
    expect(() => planMerge([shardRun(1, 2, [0, 2, 4]), outside], 'm')).toThrow(/has position 7/);
  });

  it('refuses a plan with runs missing when no shard was interrupted, allows it when one was', () => {
    expect(() => planMerge([shardRun(1, 2, [0, 2, 4]), shardRun(2, 2, [1])], 'm')).toThrow(
      /hold 4 of the plan's 5 runs and none was interrupted/,
    );
    const cut = shardRun(2, 2, [1]);
    cut.verdict.interrupted = 'SIGINT';
    const plan = planMerge([shardRun(1, 2, [0, 2, 4]), cut], 'm');
    expect(plan.verdict.interrupted).toBe('SIGINT');
  });

  it('merges runs that record no plan in the order given, and says so', () => {
    const a = shardRun(1, 1, [0]);
    const b = shardRun(1, 1, [1]);
    delete a.verdict.plan;
    delete b.verdict.plan;
    const plan = planMerge([b, a], 'm');
    expect(plan.verdict.scenarios.map((s) => s.position)).toEqual([1, 0]);
    expect(plan.notes[0]).toMatch(/record no plan/);
    expect(plan.verdict.plan).toBeUndefined();
  });
});

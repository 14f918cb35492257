/** What `leaseproof tune` does, loaded only when it runs (tune-command.ts defines the verb). */
import { withEnvironment } from './with-environment.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ConfigError } from '../errors.js';
import { assetSrc, writeEchartsAsset } from '../report/echarts-asset.js';
import { confirmPoints, type Confirmation } from '../tune/confirm.js';
import { loadTuneFile } from '../tune/load-tune.js';
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import { queuePointLine, simulateOnQueue, type QueuePoint } from '../tune/queue-sim.js';
import { fmt, sweep } from '../tune/sweep.js';
import {
  renderTuneHtml,
  renderTuneJson,
  renderTuneTable,
  tuneDocument,
} from '../tune/tune-report.js';
import { recommendedScenarioYaml } from '../tune/write-scenario.js';

const say = (line: string): void => void process.stderr.write(line + '\n');

/** The flags of `tune`, as commander parses them. */
export interface TuneFlags {
  confirm: string;
  out: string;
  writeScenario?: string;
  env?: string;
  queue?: string;
  queuePoints: string;
  queueJobs?: string;
}

/** Sweeps the grid, confirms the best points if asked, writes the report, sets the exit code. */
export async function tune(file: string, flags: TuneFlags): Promise<void> {
  const k = Number(flags.confirm);
  if (!Number.isInteger(k) || k < 0 || k > 20) {
    throw new ConfigError(`--confirm must be an integer from 0 to 20; got "${flags.confirm}"`);
  }
  const queuePoints = Number(flags.queuePoints);
  if (!Number.isInteger(queuePoints) || queuePoints < 1 || queuePoints > 20) {
    throw new ConfigError(
      `--queue-points must be an integer from 1 to 20; got "${flags.queuePoints}"`,
    );
  }
  const queueJobs = flags.queueJobs === undefined ? undefined : Number(flags.queueJobs);
  if (queueJobs !== undefined && (!Number.isInteger(queueJobs) || queueJobs < 1)) {
    throw new ConfigError(`--queue-jobs must be a positive integer; got "${flags.queueJobs}"`);
  }
  // Loaded before the sweep: a queue that does not load is an error before a minute of work.
  const queue = flags.queue === undefined ? undefined : await loadQueueAdapter(flags.queue);
  if (queue?.native !== undefined) {
    throw new ConfigError(
      `--queue ${flags.queue}: this queue runs its library's own worker loop in a program of its ` +
        "own; the simulation runs leaseproof's loop over an adapter's statements only (tune " +
        'its statements adapter, or run the recommended scenario for real)',
    );
  }
  const spec = await loadTuneFile(file);
  say(
    `tune ${spec.name}: ${spec.grid.leaseMs.length * spec.grid.heartbeatFractions.length * spec.grid.extendTimesLease.length} points × ${spec.workload.jobs} jobs (${spec.handler.source})`,
  );
  const outcome = await sweep(spec, (p, i, n) => {
    if ((i + 1) % 10 === 0 || i + 1 === n) say(`simulated ${i + 1}/${n} points`);
    void p;
  });
  let confirmation: Confirmation[] = [];
  if (k > 0) {
    confirmation = await withEnvironment(flags.env, say, (env) =>
      confirmPoints(spec, outcome, env, { k, log: say }),
    );
  }
  let onQueue: QueuePoint[] = [];
  if (queue !== undefined) {
    onQueue = await simulateOnQueue(spec, outcome, {
      queue,
      k: queuePoints,
      ...(queueJobs !== undefined && { jobs: queueJobs }),
      log: say,
    });
  }
  const doc = tuneDocument(spec, outcome, confirmation, onQueue);
  await mkdir(flags.out, { recursive: true });
  const jsonFile = join(flags.out, 'tune.json');
  const htmlFile = join(flags.out, 'tune.html');
  await writeFile(jsonFile, renderTuneJson(doc));
  const echarts = await writeEchartsAsset(flags.out);
  await writeFile(htmlFile, renderTuneHtml(doc, assetSrc(htmlFile, echarts)));
  console.log(renderTuneTable(doc));
  console.log('');
  console.log(
    `${doc.simulatedJobs} jobs simulated in ${(doc.wallMs / 1000).toFixed(1)}s ` +
      `(${Math.round(doc.simulatedJobsPerSecond)} jobs/s); > recommended, * Pareto frontier`,
  );
  const recommended = outcome.points[outcome.recommended];
  console.log(recommended === undefined ? 'no recommendation:' : 'recommended:');
  for (const reason of outcome.reasons) console.log(`  - ${reason}`);
  for (const c of confirmation) {
    console.log(
      `confirmed ${c.label} (point ${c.index + 1}, run at ×${fmt(c.timeScale)}` +
        `${c.realRuns > 1 ? `, ${c.realRuns} real runs until the crash struck a held job` : ''}): dup/1000 ` +
        `${fmt(c.measured.duplicatesPer1000)} real vs ${fmt(c.simulated.duplicatesPer1000)} sim, ` +
        `stall p50 ${fmt(c.measured.stallP50Ms)}ms vs ${fmt(c.simulated.stallP50Ms)}ms: ${c.verdict}`,
    );
  }
  for (const q of onQueue) console.log(queuePointLine(q, outcome.points[q.index]!.result));
  // The recommendation stands for --queue only if its point holds on the queue's own SQL.
  const onRecommended = onQueue.find((q) => q.index === outcome.recommended);
  const queueFails =
    queue !== undefined && recommended !== undefined && onRecommended?.holds !== true;
  if (queueFails && queue !== undefined) {
    console.log(
      onRecommended?.verdict === 'not simulated'
        ? `the recommendation could not be checked on ${queue.name}'s own SQL: run it for real (tune --confirm, or a scenario from --write-scenario)`
        : `the recommendation does not hold on ${queue.name}'s own SQL`,
    );
  }
  if (flags.writeScenario !== undefined && recommended !== undefined) {
    await writeFile(flags.writeScenario, recommendedScenarioYaml(spec, recommended.result.point));
    console.log(`scenario: ${flags.writeScenario}`);
  }
  console.log(`report: ${relative(process.cwd(), htmlFile) || htmlFile} (and tune.json)`);
  process.exitCode =
    onRecommended?.verdict === 'not simulated' || onRecommended?.verdict === 'unknown'
      ? 2
      : recommended === undefined || confirmation.some((c) => !c.agrees) || queueFails
        ? 1
        : 0;
}

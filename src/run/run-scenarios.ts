import { resolve } from 'node:path';
import { checkerByName } from '../checker/index.js';
import type { Checker, CompositeResult } from '../checker/types.js';
import { DEFAULT_CHECK_OPTIONS } from '../checker/options.js';
import { newRunId } from '../env/run-id.js';
import { selectEnvironment } from '../env/select-env.js';
import { writeRunReport } from '../report/write-run-report.js';
import { updateReportIndex } from '../report/report-index.js';
import type { NotJudgedRun, ScenarioRun } from '../report/types.js';
import type { StartedEnvironment } from '../env/types.js';
import type { RunPlan, RunProgress } from '../scenario/execute-run.js';
import { scenarioToRunPlan } from '../scenario/load-scenario.js';
import { settleQueueTerms, statedSettingsOf } from '../scenario/queue-terms.js';
import { runAndCheck, type CheckedRun } from '../scenario/run-and-check.js';
import { loadScenarioOrIncident } from '../replay/load-incident.js';
import { prepareQueueAdapter } from '../libraries/load-adapter.js';
import { ConfigError, describeError } from '../errors.js';
import type { Incident } from '../replay/load-incident.js';
import type { Scenario } from '../scenario/scenario-types.js';
import { runInLanes, type LaneOptions } from '../scale-out/lanes.js';
import { machineRoom } from '../scale-out/machine-room.js';
import { describeParallelism } from '../scale-out/parallelism.js';
import { runsAlone } from '../scale-out/runs-alone.js';
import { starvedOnly, starvedWhy } from '../scale-out/starved-retry.js';
import { WHOLE, formatShard, shardPositions, type Shard } from '../scale-out/shard.js';
import { describePlan, type RunPlanInfo } from '../scale-out/plan-info.js';
import { inEnvironment } from './environment-scope.js';

/** One scenario × queue of the plan, with its position in the whole (unsharded) plan. */
interface PlanEntry {
  scenario: Scenario;
  incident: Incident | undefined;
  plan: RunPlan;
  position: number;
  /** Why it must run alone (see runs-alone.ts), or undefined. */
  alone: string | undefined;
}

/** What `run` and `suite` were asked to do. */
export interface RunScenariosOptions {
  /** Scenario files. */
  files: string[];
  /** Queues to run each scenario against (built-in names or adapter paths). */
  queues: string[];
  /** Overrides every scenario's seed. */
  seed?: number | undefined;
  /** The library settings of `--setting` (names and values as typed), over each scenario's. */
  settings?: Readonly<Record<string, string>> | undefined;
  /**
   * Only the scenario × queue runs this keeps, by the scenario's file and the queue (default:
   * every one): a plan that is not the whole cross product, as the simulation-guided mutation
   * matrix runs for real only the cells the simulation picked.
   */
  select?: ((file: string, queue: string) => boolean) | undefined;
  /** Reports folder (default `reports`). */
  out: string;
  /** `--env`. */
  env?: string | undefined;
  /** `--epsilon`: ε for every scenario, over its own `checkOptions`. */
  epsilonMs?: number | undefined;
  /** `--i-own-this-database`. */
  iOwnThisDatabase?: boolean | undefined;
  /** Where progress lines go. */
  log: (line: string) => void;
  /** Scenario runs side by side (default 1), each in its own database with its own proxies. */
  parallel?: number | undefined;
  /** Run only this shard of the plan (default: all of it). */
  shard?: Shard | undefined;
  /** Whether `parallel` is the default rather than asked for (the first line says which). */
  parallelIsDefault?: boolean | undefined;
  /**
   * Admission of a run beside others (default: by CPU pressure, machine-room.ts); tests pass
   * their own to be independent of the machine's load.
   */
  room?: LaneOptions<unknown>['room'];
  /**
   * Aborting it stops the suite as Ctrl-C does: the runs under way are cut (faults healed,
   * workers stopped), their histories so far are judged as cut histories, nothing more starts, and
   * the report is written with what ran, marked interrupted by the abort's reason when that is a
   * signal's name (else SIGINT). The suite installs no signal handler of its own: the CLI turns
   * SIGINT/SIGTERM into this abort (cli/shutdown.ts).
   */
  signal?: AbortSignal | undefined;
}

/** One scenario × queue as it ended. */
export interface ScenarioOutcome {
  /** The scenario's name. */
  scenario: string;
  /** The queue. */
  queue: string;
  /** The verdict. */
  result: CompositeResult;
  /** Wall time of the run and its checks, ms. */
  durationMs: number;
  /**
   * Why the harness could not judge it (a worker that did not start, a server that went away):
   * the cell is `error`, its `result` an empty `unknown`, and the others are unaffected.
   */
  error?: string;
  /**
   * How many times it ran: more than once when a starved `unknown`, or a run the harness failed
   * in, was run again.
   */
  attempts?: number;
}

/** What a whole `run` produced. */
export interface RunScenariosResult {
  /** The run id (the report folder's name). */
  runId: string;
  /** The report folder. */
  dir: string;
  /** Its timeline and verdict files. */
  paths: Awaited<ReturnType<typeof writeRunReport>>;
  /** Every scenario × queue that ran (the last one cut short when interrupted). */
  outcomes: ScenarioOutcome[];
  /** Their histories and verdicts, in the same order. */
  runs: ScenarioRun[];
  /** The signal that interrupted the run, when one did. */
  interrupted?: NodeJS.Signals;
  /** The whole plan this run was part of (its shard, its size and fingerprint). */
  plan: RunPlanInfo;
}

/**
 * Loads every scenario and queue first (a typo in the last file, or in a queue's name, fails
 * before anything starts), starts one
 * environment for all of them, runs each scenario against each queue in a fresh database,
 * judges each history with the scenario's checkers, and writes the reports.
 *
 * Nothing that happens to one run costs another its result: a harness failure in a run (a
 * worker that did not start, a server that went away) makes that cell `error` with its cause
 * and the suite goes on (it is run again, alone, `ERROR_RETRIES` times, after the others); a
 * run whose verdict the harness's own starvation left `unknown` is run again, alone, up to
 * `STARVED_RETRIES` times; and the report is written whatever happened —
 * the environment failing to start or stop, Ctrl-C — naming every cell that was not judged.
 */
export async function runScenarios(options: RunScenariosOptions): Promise<RunScenariosResult> {
  // Incident files replay as their compressed scenario (`leaseproof replay` tells their story).
  const loaded = await Promise.all(options.files.map((file) => loadScenarioOrIncident(file)));
  // So do the queues: a mistyped name or a missing adapter file would otherwise be found by
  // every one of its runs, after the servers started, as a column of `error` cells.
  for (const queue of new Set(options.queues)) await prepareQueueAdapter(queue);
  const select = options.select ?? (() => true);
  const whole = loaded.flatMap(({ scenario, incident }, i) =>
    options.queues
      .filter((queue) => select(options.files[i]!, queue))
      .map((queue) => ({
        scenario,
        incident,
        plan: scenarioToRunPlan(scenario, {
          queue,
          ...(options.seed !== undefined && { seed: options.seed }),
          ...(options.settings !== undefined && { settings: options.settings }),
        }),
      })),
  );
  // Library settings are checked by their library before anything runs: a misspelt
  // `--setting` would otherwise be a column of `error` cells.
  for (const { plan } of whole) {
    if (plan.librarySettings === undefined) continue;
    const adapter = await prepareQueueAdapter(plan.queue);
    try {
      settleQueueTerms(adapter, plan.lease, false, statedSettingsOf(adapter, plan));
    } catch (error) {
      throw new ConfigError(error instanceof Error ? error.message : String(error));
    }
  }
  const shard = options.shard ?? WHOLE;
  const planInfo = describePlan(
    whole.map((e) => ({
      name: e.scenario.name,
      queue: e.plan.queue,
      seed: e.plan.seed,
      body: e.scenario,
    })),
    shard,
    options.epsilonMs,
  );
  const mine: PlanEntry[] = shardPositions(whole.length, shard).map((position) => ({
    ...whole[position]!,
    position,
    alone: runsAlone(whole[position]!.plan),
  }));
  // `--i-own-this-database` hands every run the same database: runs there cannot be side by side.
  const lanes = options.iOwnThisDatabase === true ? 1 : (options.parallel ?? 1);
  options.log(
    `${mine.length} scenario run${mine.length === 1 ? '' : 's'}; ` +
      describeParallelism(lanes, options.parallelIsDefault !== true),
  );
  const runId = newRunId();
  const startedAt = new Date();
  const provider = await selectEnvironment({
    explicit: options.env,
    iOwnThisDatabase: options.iOwnThisDatabase,
    log: options.log,
    runId,
  });
  if (shard.count > 1) {
    options.log(
      `shard ${formatShard(shard)}: ${mine.length} of the plan's ${whole.length} scenario runs`,
    );
  }
  const alone = mine.filter((e) => e.alone !== undefined);
  if (lanes > 1 && alone.length > 0) {
    options.log(
      `${lanes} runs side by side; ${alone.length} alone, after the others: ` +
        [...new Set(alone.map((e) => `${e.scenario.name} (${e.alone})`))].join('; '),
    );
  }
  if (options.iOwnThisDatabase === true && (options.parallel ?? 1) > 1) {
    options.log('--i-own-this-database: one database for every run, so one run at a time');
  }
  // An abort (Ctrl-C, through the CLI) does not throw the run away: see `signal`.
  const abort = new AbortController();
  let interrupted: NodeJS.Signals | undefined;
  const onAbort = (): void => {
    const reason: unknown = options.signal?.reason;
    interrupted ??=
      typeof reason === 'string' && /^SIG[A-Z]+$/.test(reason)
        ? (reason as NodeJS.Signals)
        : 'SIGINT';
    abort.abort();
  };
  if (options.signal?.aborted === true) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const cells = new Map<number, Cell>();
  // Runs whose workers are not all ready yet: the next start waits for them (machine-room.ts).
  const inSetup = new Set<number>();
  /** Failures of the environment itself (start, stop): every cell they cost is not judged. */
  const harness: string[] = [];
  try {
    await runAll();
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  const ordered = mine.map((e) => cells.get(e.position)).filter((c) => c !== undefined);
  const runs = ordered.flatMap((c) => (c.run === undefined ? [] : [c.run]));
  const notJudged = ordered.flatMap((c) => (c.notJudged === undefined ? [] : [c.notJudged]));
  const dir = resolve(options.out, runId);
  const paths = await writeRunReport(dir, {
    id: runId,
    startedAt,
    finishedAt: new Date(),
    environment: { provider: provider.name },
    scenarios: runs,
    ...(notJudged.length > 0 && { notJudged }),
    ...(harness.length > 0 && { harnessErrors: harness }),
    interrupted,
    plan: planInfo,
  });
  await updateReportIndex(resolve(options.out));
  if (interrupted !== undefined)
    options.log(`interrupted by ${interrupted}: report written to ${dir}`);
  return {
    runId,
    dir,
    paths,
    outcomes: ordered.map((c) => c.outcome),
    runs,
    plan: planInfo,
    ...(interrupted !== undefined && { interrupted }),
  };

  async function runAll(): Promise<void> {
    let started = false;
    try {
      // Not the suite's signal: an abort cuts the runs, whose histories are then read from the
      // servers, so they stop only once every run has ended.
      await inEnvironment(
        provider,
        (env) => {
          started = true;
          return runEveryEntry(env);
        },
        {
          log: options.log,
          // The verdicts are in: a server that would not stop cleanly costs none of them.
          onStopError: (error) => {
            const cause = `stopping the ${provider.name} environment failed: ${describeError(error)}`;
            options.log(`leaseproof: ${cause}`);
            harness.push(cause);
          },
        },
      );
    } catch (error) {
      if (started) throw error;
      // Nothing can run; the report still says what was planned and why none of it was judged.
      const cause = `the ${provider.name} environment did not start: ${describeError(error)}`;
      options.log(`leaseproof: ${cause}`);
      harness.push(cause);
      for (const entry of mine) cells.set(entry.position, errorCell(entry, cause, 0, 0));
    }
  }

  async function runEveryEntry(env: StartedEnvironment): Promise<void> {
    const room =
      options.room ??
      machineRoom({
        settling: () => inSetup.size,
        onWait: (ms) =>
          options.log(
            `a worker of a run under way was kept from a CPU for ${Math.round(ms)} ms: ` +
              'the next run waits for room',
          ),
      });
    const run = (entries: PlanEntry[], width: number, attempt: number) =>
      runInLanes(
        entries,
        {
          lanes: width,
          exclusive: (entry) => entry.alone !== undefined,
          signal: abort.signal,
          room,
        },
        (entry, _index, signal) => runOne(env, entry, signal, attempt),
      );
    await run(mine, lanes, 1);
    // Load should cost time, not verdicts: a run the harness's own starvation left `unknown`,
    // or one the harness failed in (a server too starved to answer in time, a worker that
    // did not start), is run again, alone, once the others are done — the machine then has
    // the most room. A failure that is the queue's own (an adapter that cannot load in a
    // worker) fails again the same way, and its cell stays `error` with that cause. The plan
    // is plain data: the same one runs again, with new faults.
    for (let attempt = 2; attempt <= 1 + STARVED_RETRIES; attempt += 1) {
      const again = mine.filter((e) => {
        const cell = cells.get(e.position);
        if (cell?.notJudged !== undefined) return attempt <= 1 + ERROR_RETRIES;
        return cell?.run !== undefined && starvedOnly(cell.run.result);
      });
      if (again.length === 0 || abort.signal.aborted) break;
      for (const e of again) {
        const cell = cells.get(e.position)!;
        const why =
          cell.notJudged !== undefined
            ? `not judged because the harness failed (${firstLine(cell.notJudged.cause)})`
            : `unknown because the harness starved (${starvedWhy(cell.run!.result)})`;
        const of = cell.notJudged !== undefined ? ERROR_RETRIES : STARVED_RETRIES;
        options.log(
          `${e.scenario.name} × ${e.plan.queue}: ${why}; running it again alone, ` +
            `attempt ${attempt} of ${1 + of}`,
        );
      }
      await run(again, 1, attempt);
    }
  }

  async function runOne(
    env: StartedEnvironment,
    entry: PlanEntry,
    signal: AbortSignal,
    attempt: number,
  ): Promise<void> {
    const { scenario, incident, plan, position } = entry;
    const label = `${scenario.name} × ${plan.queue}`;
    let last = '';
    inSetup.add(position);
    const progress = (p: RunProgress): void => {
      if (p.phase !== 'setup') inSetup.delete(position);
      const line =
        `${label}: ${p.phase}, ${p.jobsDone}/${p.jobsTotal} jobs` +
        (p.activeFaults.length > 0 ? `, faults: ${p.activeFaults.join(' ')}` : '');
      if (line !== last) options.log(line);
      last = line;
    };
    const checkers = checkersOf(scenario);
    const started = performance.now();
    let checked: CheckedRun;
    try {
      checked = await runAndCheck(env, plan, {
        checkers,
        checkOptions: {
          ...scenario.checkOptions,
          ...(options.epsilonMs !== undefined && { epsilonMs: options.epsilonMs }),
        },
        onProgress: progress,
        signal,
      });
    } catch (error) {
      // An interrupt that reached the run before it had anything to judge: not an error.
      if (signal.aborted && interrupted !== undefined) return;
      const cause = describeError(error);
      options.log(`${label}: error (not judged): ${cause}`);
      cells.set(position, errorCell(entry, cause, performance.now() - started, attempt));
      return;
    } finally {
      inSetup.delete(position);
    }
    const { history, result, interrupted: cut } = checked;
    options.log(`${label}: ${result.valid}${cut ? ` (interrupted by ${interrupted})` : ''}`);
    cells.set(position, {
      run: {
        history,
        result,
        name: scenario.name,
        position,
        ...(incident && { incident }),
        ...(attempt > 1 && { attempts: attempt }),
      },
      outcome: {
        scenario: scenario.name,
        queue: plan.queue,
        result,
        durationMs: performance.now() - started,
        ...(attempt > 1 && { attempts: attempt }),
      },
    });
  }
}

/** How many times a run left `unknown` by harness starvation is run again. */
export const STARVED_RETRIES = 2;

/**
 * How many times a run the harness failed in is run again (at most `STARVED_RETRIES`). Once:
 * a machine too loaded for a server to answer usually has room by the end of the suite, and a
 * failure that is no accident costs only one more run to show itself again.
 */
export const ERROR_RETRIES = 1;

/** The first line of a (multi-line, "caused by") cause. */
function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

/** One scenario × queue as it ended: judged (`run`) or not (`notJudged`). */
interface Cell {
  outcome: ScenarioOutcome;
  run?: ScenarioRun;
  notJudged?: NotJudgedRun;
}

function checkersOf(scenario: Scenario): Checker[] {
  return scenario.check.map((name) => {
    const checker = checkerByName(name);
    if (checker === undefined) throw new ConfigError(`unknown checker "${name}"`);
    return checker;
  });
}

/** The cell of a run the harness could not judge. */
function errorCell(entry: PlanEntry, cause: string, durationMs: number, attempt: number): Cell {
  return {
    outcome: {
      scenario: entry.scenario.name,
      queue: entry.plan.queue,
      result: { valid: 'unknown', results: [], options: { ...DEFAULT_CHECK_OPTIONS } },
      durationMs,
      error: cause,
      ...(attempt > 1 && { attempts: attempt }),
    },
    notJudged: {
      name: entry.scenario.name,
      queue: entry.plan.queue,
      seed: entry.plan.seed,
      position: entry.position,
      cause,
      ...(attempt > 1 && { attempts: attempt }),
    },
  };
}

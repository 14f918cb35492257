/**
 * The mutation matrix guided by the simulation (`leaseproof mutants` without `--full`): every
 * variant is first run on every scenario the simulation models, in simulated time against its
 * own SQL on PGlite, and only the cells that matter are then run for real — the base on every
 * scenario (a false alarm anywhere voids the matrix, as in the full one), and for each variant
 * the scenarios that killed it in simulation, as many as `minKills` needs. A variant the
 * simulation does not kill often enough is searched for on real runs, starting with the
 * scenarios the simulation does not model (see `nextPicks`), and the matrix says why it was left
 * to them. Only real runs count as kills: a simulated kill is a lead.
 */
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import { checkerByName } from '../checker/index.js';
import { runCheckers } from '../checker/compose.js';
import type { Checker } from '../checker/types.js';
import { ConfigError, describeError } from '../errors.js';
import type { SimulatedCell, SimulationGuide } from '../report/kill-matrix-types.js';
import { loadScenarioOrIncident } from '../replay/load-incident.js';
import { runScenarios, type ScenarioOutcome } from '../run/run-scenarios.js';
import { scenarioToRunPlan } from '../scenario/load-scenario.js';
import type { Scenario } from '../scenario/scenario-types.js';
import { SimulationLimitError } from '../sim/pglite/sim-database.js';
import { SimPool } from '../sim/pglite/sim-pool.js';
import { SimulationBoundError } from '../sim/pglite/sim-bounds.js';
import { simApproximations } from '../sim/pglite/scenario-sim.js';
import { nextPicks, type VariantLeads } from './guided-plan.js';
import { defaultParallelism, usableCores } from '../scale-out/parallelism.js';
import { runsAlone } from '../scale-out/runs-alone.js';
import type { VariantSpec } from './kill-matrix.js';
import { suiteOptions } from './suite-options.js';
import type { MutantsOptions } from './run-mutants.js';

/** What the guided matrix ran, for `buildKillMatrix`. */
export interface GuidedRun {
  /** Every real outcome, of every round. */
  outcomes: ScenarioOutcome[];
  /** The scenarios by name, in file order. */
  scenarios: string[];
  /** Why a cell was not run for real. */
  notRun: (queue: string, scenario: string) => string | undefined;
  /** What the simulation said of a cell. */
  simulated: (queue: string, scenario: string) => SimulatedCell | undefined;
  /** How it was guided. */
  guide: SimulationGuide;
  /** The first round's report folder (the base's runs; the matrix is written there). */
  dir: string;
  /** The run folder of a cell run in a later round (see `KillCell.report`). */
  reportOf: (queue: string, scenario: string) => string | undefined;
}

interface Loaded {
  file: string;
  scenario: Scenario;
}

// Simulated kills to find per variant before the simulation moves on: what `minKills` needs,
// and spares for a real run that misses its lead.
const SIM_SPARES = 2;

/** Runs the guided matrix: the simulation, then rounds of real runs until every variant is settled. */
export async function runGuided(
  options: MutantsOptions,
  variants: readonly VariantSpec[],
  minKills: number,
): Promise<GuidedRun> {
  const loaded: Loaded[] = await Promise.all(
    options.files.map(async (file) => ({
      file,
      scenario: (await loadScenarioOrIncident(file)).scenario,
    })),
  );
  const nameOf = new Map(loaded.map((l) => [l.file, l.scenario.name]));
  const simStarted = performance.now();
  const sim = await simulateLeads(options, loaded, variants, minKills);
  const simulatedMs = Math.round(performance.now() - simStarted);

  const outcomes: ScenarioOutcome[] = [];
  const reports: string[] = [];
  const progress = new Map(
    variants.map((v) => [v.queue, { tried: new Set<string>(), realKills: 0 }]),
  );
  const catches = new Map(variants.map((v) => [v.queue, v.catches]));
  // Where each invariant killed a variant for real: a variant the simulation gave no lead
  // searches there first.
  const killedBy = new Map<string, string[]>();
  const roundOf = new Map<string, string>();
  // The runs a round has side by side: a blind search fills them.
  const width = options.parallel ?? defaultParallelism();
  let round = 1;
  for (;;) {
    const picks = new Map<string, Set<string>>();
    const pick = (file: string, queue: string): void => {
      const queues = picks.get(file) ?? new Set<string>();
      picks.set(file, queues.add(queue));
    };
    // The base and the controls run on every scenario: a false alarm anywhere voids the matrix.
    if (round === 1) {
      for (const { file } of loaded) {
        for (const q of [options.base, ...(options.controls ?? [])]) pick(file, q);
      }
    }
    for (const v of variants) {
      const picks = nextPicks(
        sim.leads.get(v.queue)!,
        progress.get(v.queue)!,
        minKills,
        width,
        killedBy.get(v.catches),
      );
      for (const file of picks) {
        pick(file, v.queue);
      }
    }
    if (picks.size === 0) break;
    const files = options.files.filter((f) => picks.has(f));
    const queues = [
      options.base,
      ...(options.controls ?? []),
      ...variants.map((v) => v.queue),
    ].filter((q) => files.some((f) => picks.get(f)!.has(q)));
    const cells = files.reduce((n, f) => n + picks.get(f)!.size, 0);
    options.log(
      round === 1
        ? `real runs, round 1: ${[options.base, ...(options.controls ?? [])].join(' and ')} on every scenario, and each variant on the scenarios ` +
            `that killed it in simulation (${cells} runs)`
        : `real runs, round ${round}: ${cells} more for ` +
            `${variants.filter((v) => progress.get(v.queue)!.realKills < minKills).length} ` +
            `variant(s) not yet killed on ${minKills} real runs`,
    );
    const run = await runScenarios({
      files,
      queues,
      select: (file, queue) => picks.get(file)?.has(queue) === true,
      ...suiteOptions(options),
    });
    reports.push(run.dir);
    outcomes.push(...run.outcomes);
    if (round > 1)
      for (const o of run.outcomes) roundOf.set(`${o.queue}\u0000${o.scenario}`, run.runId);
    const fileOf = new Map(loaded.map((l) => [l.scenario.name, l.file]));
    for (const [file, queues] of picks) {
      for (const q of queues) progress.get(q)?.tried.add(file);
    }
    for (const o of run.outcomes) {
      const named = catches.get(o.queue);
      const state = progress.get(o.queue);
      if (named === undefined || state === undefined || fileOf.get(o.scenario) === undefined)
        continue;
      const killed = o.result.results.some((r) => r.valid === 'invalid' && r.checker === named);
      if (killed) {
        state.realKills += 1;
        const files = killedBy.get(named) ?? [];
        killedBy.set(named, files);
        files.push(fileOf.get(o.scenario)!);
      }
    }
    if (run.interrupted !== undefined) break;
    round += 1;
  }

  const ran = new Set(outcomes.map((o) => `${o.queue}\u0000${o.scenario}`));
  const fileByName = new Map(loaded.map((l) => [l.scenario.name, l.file]));
  const leftToReal = variants
    .filter((v) => sim.trustedKills(v.queue) < minKills)
    .map((v) => ({
      queue: v.queue,
      why: leftToRealWhy(v, sim, outcomes, nameOf, minKills),
    }));
  return {
    outcomes,
    scenarios: loaded.map((l) => l.scenario.name),
    notRun: (queue, scenario) => {
      if (ran.has(`${queue}\u0000${scenario}`)) return undefined;
      const state = progress.get(queue);
      if (state === undefined) return undefined;
      return state.realKills >= minKills
        ? `not run for real: killed on ${state.realKills} real run(s) already, ` +
            'on the scenarios the simulation led to'
        : 'not run for real: the run stopped first';
    },
    simulated: (queue, scenario) => sim.cells.get(queue)?.get(fileByName.get(scenario) ?? ''),
    guide: {
      simulatedRuns: sim.runs,
      simulatedMs,
      realRuns: outcomes.length,
      fullRuns: loaded.length * (variants.length + 1),
      reports,
      leftToReal,
    },
    dir: reports[0] ?? options.out,
    reportOf: (queue, scenario) => roundOf.get(`${queue}\u0000${scenario}`),
  };
}

/** The simulation's verdicts: per queue, per scenario file; and each variant's leads. */
interface SimLeads {
  cells: Map<string, Map<string, SimulatedCell>>;
  leads: Map<string, VariantLeads>;
  /** Why the simulation does not model a scenario, or models it only approximately. */
  unmodelled: Map<string, string>;
  runs: number;
  trustedKills: (queue: string) => number;
}

async function simulateLeads(
  options: MutantsOptions,
  loaded: Loaded[],
  variants: readonly VariantSpec[],
  minKills: number,
): Promise<SimLeads> {
  const cells = new Map<string, Map<string, SimulatedCell>>();
  const unmodelled = new Map<string, string>();
  const set = (queue: string, file: string, cell: SimulatedCell): void => {
    const row = cells.get(queue) ?? new Map<string, SimulatedCell>();
    cells.set(queue, row.set(file, cell));
  };
  let runs = 0;
  // The simulation's runs side by side, one process per usable core: each run is CPU-bound.
  const pool = await SimPool.start(usableCores());
  try {
    const simulate = async (
      queueName: string,
      l: Loaded,
      named?: string,
    ): Promise<SimulatedCell> => {
      try {
        const history = await pool.history(l.scenario, queueName);
        runs += 1;
        const result = runCheckers(checkersOf(l), history, {
          ...l.scenario.checkOptions,
          ...(options.epsilonMs !== undefined && { epsilonMs: options.epsilonMs }),
        });
        const invalid = result.results.filter((r) => r.valid === 'invalid').map((r) => r.checker);
        return {
          verdict: result.valid,
          invalid,
          named: named !== undefined && invalid.includes(named),
        };
      } catch (error) {
        if (error instanceof SimulationLimitError) return { refused: error.message };
        // A run a bound cut short (a statement that waits or loops in the database) is unknown:
        // the cell is left to real runs with the cause, and the matrix goes on.
        if (error instanceof SimulationBoundError) {
          return { refused: `unknown in simulation: ${error.message}` };
        }
        if (error instanceof ConfigError) throw error;
        // The simulation failing is no verdict: the cell is left to real runs, with the cause.
        return { refused: `the simulation failed: ${describeError(error)}` };
      }
    };
    for (const l of loaded) {
      const why = simApproximations(scenarioToRunPlan(l.scenario, { queue: options.base }));
      if (why.length > 0) unmodelled.set(l.file, why.join('; '));
    }
    // The base in simulation: a scenario where it is not valid there leads to no kill.
    const base = await loadQueueAdapter(options.base);
    if (base.native === undefined) {
      const baseCells = await Promise.all(
        loaded.map((l) =>
          options.signal?.aborted === true ? Promise.resolve(undefined) : simulate(options.base, l),
        ),
      );
      loaded.forEach((l, i) => {
        const cell = baseCells[i];
        if (cell === undefined) return;
        set(options.base, l.file, cell);
        if ('refused' in cell && !unmodelled.has(l.file)) unmodelled.set(l.file, cell.refused);
      });
    }
    // A variant's scenarios are tried (and its kills listed) with those that share the machine
    // first: its real runs then mostly run side by side, where a scenario that must run alone
    // (a CPU-bound handler, a database restart) holds the whole machine for its run.
    const alone = new Set(
      loaded.filter(
        (l) => runsAlone(scenarioToRunPlan(l.scenario, { queue: options.base })) !== undefined,
      ),
    );
    const shareableFirst = [
      ...loaded.filter((l) => !alone.has(l)),
      ...loaded.filter((l) => alone.has(l)),
    ];
    const trusted = (file: string): boolean => {
      const cell = cells.get(options.base)?.get(file);
      return cell === undefined || ('verdict' in cell && cell.verdict === 'valid');
    };
    // Every variant's search at once, each in its own order: the processes take the runs as
    // they come, and each variant's cells are what its search alone would have found.
    const variantCells = await Promise.all(
      variants.map(async (v) => {
        const row = new Map<string, SimulatedCell>();
        let kills = 0;
        for (const l of shareableFirst) {
          if (options.signal?.aborted === true || kills >= minKills + SIM_SPARES) break;
          const cell = await simulate(v.queue, l, v.catches);
          row.set(l.file, cell);
          if ('named' in cell && cell.named && trusted(l.file)) kills += 1;
        }
        return { row, kills };
      }),
    );
    variants.forEach((v, i) => {
      const { row, kills } = variantCells[i]!;
      for (const l of shareableFirst) {
        const cell = row.get(l.file);
        if (cell === undefined) continue;
        set(v.queue, l.file, cell);
        if ('refused' in cell && !unmodelled.has(l.file)) unmodelled.set(l.file, cell.refused);
      }
      options.log(
        `simulation: ${v.queue} killed by ${v.catches} on ${kills} scenario(s)` +
          (kills < minKills ? ': left to real runs' : ''),
      );
    });
    const leads = new Map<string, VariantLeads>();
    for (const v of variants) {
      const row = cells.get(v.queue) ?? new Map<string, SimulatedCell>();
      const simKills = shareableFirst
        .map((l) => l.file)
        .filter((f) => {
          const cell = row.get(f);
          return cell !== undefined && 'named' in cell && cell.named && trusted(f);
        });
      const simOthers = loaded
        .map((l) => l.file)
        .filter((f) => {
          const cell = row.get(f);
          return (
            !simKills.includes(f) &&
            cell !== undefined &&
            'verdict' in cell &&
            cell.verdict === 'invalid'
          );
        });
      const rest = loaded
        .map((l) => l.file)
        .filter((f) => !simKills.includes(f) && !simOthers.includes(f));
      leads.set(v.queue, {
        queue: v.queue,
        simKills,
        simOthers,
        unmodelled: rest.filter((f) => unmodelled.has(f)),
        unsimulated: rest.filter((f) => !unmodelled.has(f) && !row.has(f)),
        others: rest.filter((f) => !unmodelled.has(f) && row.has(f)),
      });
    }
    return {
      cells,
      leads,
      unmodelled,
      runs,
      trustedKills: (queue) => leads.get(queue)?.simKills.length ?? 0,
    };
  } finally {
    await pool.stop();
  }
}

/**
 * Why a variant was left to real runs, and what the real runs then showed: the scenarios that
 * killed it for real, each with why the simulation could not (it refused it, ran it only
 * approximately, or ran it and missed — a race it does not model: row-lock waits, CPU
 * starvation, a slow link, a skewed clock).
 */
function leftToRealWhy(
  v: VariantSpec,
  sim: SimLeads,
  outcomes: readonly ScenarioOutcome[],
  nameOf: ReadonlyMap<string, string>,
  minKills: number,
): string {
  const leads = sim.leads.get(v.queue)!;
  const modelled = [...(sim.cells.get(v.queue)?.values() ?? [])].filter((c) => 'verdict' in c);
  const fileOf = new Map([...nameOf].map(([file, name]) => [name, file]));
  const realKills = outcomes
    .filter(
      (o) =>
        o.queue === v.queue &&
        o.result.results.some((r) => r.valid === 'invalid' && r.checker === v.catches),
    )
    .map((o) => {
      const file = fileOf.get(o.scenario) ?? '';
      const cell = sim.cells.get(v.queue)?.get(file);
      const reason =
        cell !== undefined && 'named' in cell && cell.named
          ? 'killed in simulation too'
          : cell !== undefined && 'refused' in cell
            ? cell.refused.replace(/^[^:]*: /, '').replace(/; run (it|this queue) for real$/, '')
            : sim.unmodelled.has(file)
              ? `modelled approximately: ${sim.unmodelled.get(file)!}`
              : 'modelled, and missed: the race it needs is one the simulation does not run ' +
                '(row-lock waits between transactions, CPU starvation, a slow link, a skewed clock)';
      return `${o.scenario} (${reason})`;
    });
  return (
    `the simulation killed it on ${leads.simKills.length} of the ${modelled.length} scenario(s) ` +
    `it ran, fewer than ${minKills}; ` +
    (realKills.length === 0
      ? 'no real run killed it either'
      : `real runs killed it on ${realKills.join('; ')}`)
  );
}

function checkersOf(l: Loaded): Checker[] {
  return l.scenario.check.map((name) => {
    const checker = checkerByName(name);
    if (checker === undefined) throw new ConfigError(`${l.file}: unknown checker "${name}"`);
    return checker;
  });
}

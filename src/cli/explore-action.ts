/**
 * What `leaseproof explore` does, loaded only when it runs (explore-command.ts defines the verb).
 */
import { withEnvironment } from './with-environment.js';
import { relative } from 'node:path';
import { ConfigError } from '../errors.js';
import { explore, refuseUnsimulable } from '../explore/explore.js';
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import { prepareQueueAdapter } from '../libraries/load-adapter.js';
import type { ExploreProgress, ExploreResult, UnconfirmedFailure } from '../explore/types.js';
import { parseDuration } from '../duration.js';
import { laneSeeds } from '../explore/lane-seeds.js';
import { parseParallel } from '../scale-out/parallelism.js';
import { WHOLE, formatShard, parseShard } from '../scale-out/shard.js';

const say = (line: string): void => void process.stderr.write(line + '\n');
const shown = (path: string): string => relative(process.cwd(), path) || path;

/** The flags of `explore`, as commander parses them. */
export interface ExploreFlags {
  queue: string;
  runs: string;
  seed?: string;
  budget: string;
  out: string;
  env?: string;
  parallel?: string;
  shard?: string;
  sim?: boolean;
}

/** A whole number flag, or a ConfigError naming it and its range. */
function integerFlag(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`--${name} must be an integer from ${min} to ${max}; got "${text}"`);
  }
  return value;
}

function progressLine(p: ExploreProgress): string {
  const last = p.last
    ? `, last ${p.last.valid}${p.last.violated.length > 0 ? ` (${p.last.violated.join(', ')})` : ''} in ${(p.last.durationMs / 1000).toFixed(1)}s`
    : '';
  return (
    `explore: ${p.phase}, ${p.runsDone} ${p.simulated ? 'simulated ' : ''}runs, ${p.failures} failures, ` +
    `${p.shrinks} shrink steps, ` +
    `${p.unconfirmed > 0 ? `${p.unconfirmed} unconfirmed, ` : ''}` +
    `${p.cutShort > 0 ? `${p.cutShort} cut short by a simulation bound (unknown; last: ${p.cutShortCause ?? ''}), ` : ''}` +
    `${(p.elapsedMs / 1000).toFixed(0)}s${last}`
  );
}

function unconfirmedLine(u: UnconfirmedFailure): string {
  return (
    `explore: unconfirmed failure (${u.violated.join(', ') || 'the run failed'}` +
    `${u.foundIn === 'simulation' ? ', found in simulation' : ''}): reproduced on 0 ` +
    `of ${u.replays} ${u.foundIn === 'simulation' ? 'real ' : ''}replays; not a counterexample, ` +
    `searching on. Report: ${shown(u.firstFailureReport)}/`
  );
}

function printResult(result: ExploreResult): void {
  if (!result.failed) {
    console.log(
      `no counterexample in ${result.runsDone} runs (${(result.elapsedMs / 1000).toFixed(0)}s` +
        `${result.interrupted ? ', budget spent' : ''})`,
    );
  } else {
    const file = shown(result.file);
    const simulated = result.foundIn === 'simulation';
    console.log(
      `counterexample found after ${(result.firstFailureMs / 1000).toFixed(0)}s` +
        (simulated ? ' in simulated time, then confirmed on real runs' : ''),
    );
    console.log(`violated: ${result.violated.join(', ') || '(the run failed)'}`);
    console.log(
      `reproduced on ${result.reproduced} of ${result.replays} ${simulated ? 'real runs (PostgreSQL, Toxiproxy, worker processes)' : 'replays'}` +
        (result.reproduced < result.replays ? ' (flaky, but real)' : ''),
    );
    console.log(`shrunk in ${result.shrinks} steps to ${result.scenario.faults.length} fault(s)`);
    console.log(`search seed: ${result.laneSeed} (path ${result.counterexamplePath})`);
    console.log(`file: ${file}`);
    console.log(`first failing run: ${shown(result.firstFailureReport)}/`);
    console.log(`replay: ${result.replayCommand.replace(result.file, file)}`);
  }
  if (result.unconfirmed.length > 0) {
    console.log(
      `unconfirmed (reproduced on no replay; not counted as counterexamples): ` +
        result.unconfirmed
          .map(
            (u) =>
              `${u.violated.join(', ') || 'the run failed'} at ${shown(u.firstFailureReport)}/`,
          )
          .join('; '),
    );
  }
}

/** Searches for a fault schedule that breaks the queue, prints what it found, sets the exit. */
export async function runExplore(flags: ExploreFlags): Promise<void> {
  const runs = integerFlag('runs', flags.runs, 1, 1_000_000);
  const seed =
    flags.seed === undefined
      ? Math.floor(Math.random() * 0x7fffffff)
      : integerFlag('seed', flags.seed, 0, 0xffffffff);
  const budgetMs = parseDuration(flags.budget);
  // A simulated search is one lane unless asked: one lane is one result per seed, where lanes
  // side by side race to the first failure (each lane's draws are still its seed's).
  const parallel =
    flags.sim === true && flags.parallel === undefined ? 1 : parseParallel(flags.parallel);
  const shard = flags.shard === undefined ? WHOLE : parseShard(flags.shard);
  const lanes = laneSeeds(seed, runs, parallel, shard);
  // Before the servers start: a mistyped queue is a usage error, not a failed search; so is a
  // simulated search the simulation cannot run.
  await prepareQueueAdapter(flags.queue);
  if (flags.sim === true) refuseUnsimulable(await loadQueueAdapter(flags.queue));
  say(
    `explore: ${flags.queue}, up to ${runs} ${flags.sim === true ? 'simulated ' : ''}runs, seed ${seed}, budget ${flags.budget}` +
      (flags.sim === true
        ? ' (in simulated time on PGlite: crash, pause, partition, latency and clock faults; each failure replayed for real)'
        : '') +
      (shard.count > 1 ? `, shard ${formatShard(shard)}` : '') +
      `, ${lanes.length} search(es) side by side` +
      (lanes.length > 1 || shard.count > 1
        ? ` (seeds ${lanes.map((l) => `${l.seed}×${l.runs}`).join(', ')})`
        : ''),
  );
  const result = await withEnvironment(flags.env, say, (env) =>
    explore({
      queue: flags.queue,
      runs,
      seed,
      budgetMs,
      env,
      outDir: flags.out,
      onProgress: (p) => say(progressLine(p)),
      onUnconfirmed: (u) => say(unconfirmedLine(u)),
      parallel,
      shard,
      ...(flags.sim === true && { sim: true }),
    }),
  );
  printResult(result);
  // Unconfirmed failures alone exit 0: CI does not go red on a failure the machine could not
  // repeat, and the listing above and their folders keep them in sight (see the README).
  process.exitCode = result.failed ? 1 : 0;
}

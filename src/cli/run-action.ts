/**
 * What `leaseproof run` and `leaseproof suite` do, loaded only when one of them runs: the suite
 * runner and the report writers behind it are most of leaseproof's code, which `--help` and
 * `--version` have no use for (run-command.ts defines the two verbs).
 */
import { relative, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { parseEpsilon } from './epsilon-option.js';
import { runScenarios, type RunScenariosResult } from '../run/run-scenarios.js';
import { defaultScenarioFiles } from './scenario-folder.js';
import { withShutdownSignal } from './shutdown.js';
import { resolveScenarioArgs } from './scenario-args.js';
import { formatOutcomeTable } from './outcome-table.js';
import { parseParallel } from '../scale-out/parallelism.js';
import { parseShard } from '../scale-out/shard.js';
import { addExpectations } from '../report/add-expectations.js';
import { expectationsExitCode, expectationsLine } from '../report/expectations.js';
import { updateReportIndex } from '../report/report-index.js';
import type { ExpectedVerdict, VerdictExpectations } from '../report/verdict-types.js';

const say = (line: string): void => void process.stderr.write(line + '\n');

/** The flags `run` and `suite` share, as commander parses them: values as typed, checked here. */
export interface RunFlags {
  queue?: string[];
  expect?: string[];
  seed?: string;
  setting?: string[];
  out: string;
  env?: string;
  iOwnThisDatabase?: boolean;
  json?: boolean;
  epsilon?: string;
  parallel?: string;
  shard?: string;
}

/** `leaseproof run <files…>`: the files or scenario names given, run and judged. */
export async function runFiles(args: string[], flags: RunFlags): Promise<void> {
  await runAndReport(await resolveScenarioArgs(args, say), flags);
}

/** `leaseproof suite [dir]`: every scenario of the folder, run and judged. */
export async function runSuite(dir: string | undefined, flags: RunFlags): Promise<void> {
  await runAndReport(await defaultScenarioFiles(dir, '`leaseproof suite DIR`', say), flags);
}

async function runAndReport(files: string[], flags: RunFlags): Promise<void> {
  // Ctrl-C cuts the suite, and the exit waits for the report, the expectations and the table.
  await withShutdownSignal((signal) => runAndReportUntil(signal, files, flags));
}

async function runAndReportUntil(
  signal: AbortSignal,
  files: string[],
  flags: RunFlags,
): Promise<void> {
  let seed: number | undefined;
  if (flags.seed !== undefined) {
    seed = Number(flags.seed);
    if (!Number.isInteger(seed))
      throw new ConfigError(`--seed must be an integer; got "${flags.seed}"`);
  }
  const epsilonMs = flags.epsilon === undefined ? undefined : parseEpsilon(flags.epsilon);
  const settings = parseSettings(flags.setting ?? []);
  // Parsed before anything runs: a typo in --expect is not found after a whole suite.
  const expected = (flags.expect ?? []).map(parseExpectation);
  const queues = flags.queue ?? [];
  const result = await runScenarios({
    files,
    epsilonMs,
    queues: queues.length > 0 ? queues : ['reference'],
    seed,
    ...(settings !== undefined && { settings }),
    out: flags.out,
    env: flags.env,
    iOwnThisDatabase: flags.iOwnThisDatabase,
    log: say,
    parallel: parseParallel(flags.parallel),
    parallelIsDefault: flags.parallel === undefined,
    ...(flags.shard !== undefined && { shard: parseShard(flags.shard) }),
    signal,
  });
  // The runner has written the report; the expectations are judged into it, and the exit code
  // follows what the report says.
  const expectations =
    expected.length > 0 ? await addExpectations(result.dir, expected) : undefined;
  if (expectations !== undefined) await updateReportIndex(resolve(flags.out));
  printResult(result, flags.json === true, expectations);
  if (expectations !== undefined) {
    say(expectationsLine(expectations));
    process.exitCode = expectationsExitCode(expectations);
    return;
  }
  const verdicts = result.outcomes.map((o) => o.result.valid);
  process.exitCode = verdicts.includes('invalid') ? 1 : verdicts.includes('unknown') ? 2 : 0;
}

/**
 * `--setting JobTimeout=10m --setting missedHeartbeatsLimit=6`: the library's own settings, by
 * name; the library checks names and values when the run settles them.
 */
function parseSettings(texts: string[]): Record<string, string> | undefined {
  if (texts.length === 0) return undefined;
  const settings: Record<string, string> = {};
  for (const text of texts) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/.exec(text);
    if (match === null) {
      throw new ConfigError(
        `--setting takes a library setting as name=value (JobTimeout=10m); got "${text}"`,
      );
    }
    settings[match[1]!] = match[2]!;
  }
  return settings;
}

/**
 * `--expect reference=valid --expect unconditional-ack=invalid`: a run that proves the harness
 * can tell (the demo; a user's CI that keeps a known-bad queue around as a canary).
 */
function parseExpectation(text: string): ExpectedVerdict {
  const [queue, verdict, extra] = text.split('=');
  if (!queue || (verdict !== 'valid' && verdict !== 'invalid') || extra !== undefined) {
    throw new ConfigError(`--expect takes queue=valid or queue=invalid; got "${text}"`);
  }
  return { queue, verdict };
}

function printResult(
  result: RunScenariosResult,
  json: boolean,
  expectations: VerdictExpectations | undefined,
): void {
  if (json) {
    console.log(
      JSON.stringify({
        runId: result.runId,
        dir: result.dir,
        outcomes: result.outcomes.map((o) => ({
          scenario: o.scenario,
          queue: o.queue,
          verdict: o.result.valid,
          checkers: Object.fromEntries(o.result.results.map((r) => [r.checker, r.valid])),
        })),
        ...(expectations !== undefined && { expectations }),
      }),
    );
    return;
  }
  console.log(formatOutcomeTable(result.outcomes));
  console.log(`\nreport: ${relative(process.cwd(), result.dir) || result.dir}`);
  for (const s of result.paths.scenarios) {
    console.log(`  ${s.label}: ${relative(process.cwd(), s.timeline)}`);
  }
}

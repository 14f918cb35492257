import { Command, Option } from 'commander';
import { relative, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { epsilonOption, parseEpsilon } from './epsilon-option.js';
import { runScenarios, type RunScenariosResult } from '../run/run-scenarios.js';
import { defaultScenarioFiles } from './scenario-folder.js';
import { withShutdownSignal } from './shutdown.js';
import { resolveScenarioArgs } from './scenario-args.js';
import { formatOutcomeTable } from './outcome-table.js';
import { parallelOption, parseParallel } from '../scale-out/parallelism.js';
import { parseShard } from '../scale-out/shard.js';
import { addExpectations } from '../report/add-expectations.js';
import { expectationsExitCode, expectationsLine } from '../report/expectations.js';
import { updateReportIndex } from '../report/report-index.js';
import type { ExpectedVerdict, VerdictExpectations } from '../report/verdict-types.js';

const say = (line: string): void => void process.stderr.write(line + '\n');

interface RunFlags {
  queue: string[];
  expect?: string[];
  seed?: string;
  out: string;
  env?: string;
  iOwnThisDatabase?: boolean;
  json?: boolean;
  epsilon?: string;
  parallel?: string;
  shard?: string;
}

function withRunOptions(command: Command): Command {
  return command
    .option(
      '--queue <name|path>',
      'queue under test; repeat to run each scenario against several',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--seed <n>', "override every scenario's seed")
    .option('--out <dir>', 'reports folder', 'reports')
    .addOption(
      new Option('--env <provider>', 'embedded | external | containers').env('LEASEPROOF_ENV'),
    )
    .option('--i-own-this-database', "run inside DATABASE_URL's own database (never dropped)")
    .option('--json', 'print the verdict as JSON on stdout')
    .addOption(epsilonOption("for every scenario, over the files' checkOptions"))
    .addOption(
      parallelOption('scenario runs, each in its own database with its own proxies and workers,'),
    )
    .option(
      '--shard <i/n>',
      'run only shard i of n of the scenario × queue plan (a CI matrix job); combine with `leaseproof merge`',
    )
    .option(
      '--expect <queue=verdict>',
      'exit 0 only if this queue gets this overall verdict (e.g. unconditional-ack=invalid); repeatable',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
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
  // Parsed before anything runs: a typo in --expect is not found after a whole suite.
  const expected = (flags.expect ?? []).map(parseExpectation);
  const result = await runScenarios({
    files,
    epsilonMs,
    queues: flags.queue.length > 0 ? flags.queue : ['reference'],
    seed,
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

/** `leaseproof run <files…>`. */
export function runCommand(): Command {
  return withRunOptions(
    new Command('run')
      .description(
        'run scenario files against a queue and judge them; exit 0 valid, 1 invalid, 2 unknown or error',
      )
      .argument(
        '<files...>',
        'scenario YAML files, or names of scenarios in ./scenarios or shipped with leaseproof',
      ),
  ).action(async (files: string[], flags: RunFlags) =>
    runAndReport(await resolveScenarioArgs(files, say), { ...flags, queue: flags.queue ?? [] }),
  );
}

/** `leaseproof suite [dir]`. */
export function suiteCommand(): Command {
  return withRunOptions(
    new Command('suite')
      .description('run every scenario of a folder')
      .argument(
        '[dir]',
        'folder of scenario YAML files (default: ./scenarios, else the curated suite shipped with leaseproof)',
      ),
  ).action(async (dir: string | undefined, flags: RunFlags) =>
    runAndReport(await defaultScenarioFiles(dir, '`leaseproof suite DIR`', say), {
      ...flags,
      queue: flags.queue ?? [],
    }),
  );
}

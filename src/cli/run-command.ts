import { Command, Option } from 'commander';
import { epsilonOption } from './epsilon-option.js';
import { parallelOption } from './parallel-option.js';
import type { RunFlags } from './run-action.js';

function withRunOptions(command: Command): Command {
  return command
    .option(
      '--queue <name|path>',
      'queue under test; repeat to run each scenario against several',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--seed <n>', "override every scenario's seed")
    .option(
      '--setting <name=value>',
      "a setting of the library under test, by its own name and in its own units (JobTimeout=10m, missedHeartbeatsLimit=6), over the scenario's and the library's defaults; repeatable",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
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
    (await import('./run-action.js')).runFiles(files, flags),
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
    (await import('./run-action.js')).runSuite(dir, flags),
  );
}

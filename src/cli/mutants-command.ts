import { Command, Option } from 'commander';
import { relative } from 'node:path';
import { ConfigError } from '../errors.js';
import { formatKillMatrix } from '../report/kill-matrix-text.js';
import { runMutants } from '../mutants/run-mutants.js';
import { withShutdownSignal } from './shutdown.js';
import { defaultScenarioFiles } from './scenario-folder.js';
import { parallelOption, parseParallel } from '../scale-out/parallelism.js';

interface MutantsFlags {
  queue: string;
  scenarios?: string;
  variant?: string[];
  minKills: string;
  out: string;
  env?: string;
  iOwnThisDatabase?: boolean;
  json?: boolean;
  parallel?: string;
}

const say = (line: string): void => void process.stderr.write(line + '\n');

/** `leaseproof mutants`: the curated suite against every known-bad variant; exit 0 only at 100 %. */
export function mutantsCommand(): Command {
  return new Command('mutants')
    .description(
      'run the suite against the base queue and each known-bad variant; print the kill matrix and ' +
        'the mutation score; exit 0 when the base is clean and every variant is caught by the ' +
        'invariant that names its bug, 1 otherwise',
    )
    .option('--queue <name|path>', 'the correct queue the variants are variants of', 'reference')
    .option(
      '--scenarios <dir>',
      'folder of scenario YAML files (default: ./scenarios, else the curated suite shipped with leaseproof)',
    )
    .option(
      '--variant <name>',
      'only this variant; repeatable (default: all)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--min-kills <n>', 'scenarios that must catch each variant', '1')
    .option('--out <dir>', 'reports folder', 'reports')
    .addOption(
      new Option('--env <provider>', 'embedded | external | containers').env('LEASEPROOF_ENV'),
    )
    .option('--i-own-this-database', "run inside DATABASE_URL's own database (never dropped)")
    .option('--json', 'print the matrix as JSON on stdout')
    .addOption(parallelOption('scenario runs'))
    .action(async (flags: MutantsFlags) => {
      const minKills = Number(flags.minKills);
      if (!Number.isInteger(minKills) || minKills < 1) {
        throw new ConfigError(`--min-kills must be an integer >= 1; got "${flags.minKills}"`);
      }
      const files = await defaultScenarioFiles(flags.scenarios, '--scenarios DIR', say);
      const { matrix, dir } = await withShutdownSignal((signal) =>
        runMutants({
          files,
          base: flags.queue,
          variants: flags.variant,
          minKills,
          out: flags.out,
          env: flags.env,
          iOwnThisDatabase: flags.iOwnThisDatabase,
          log: say,
          parallel: parseParallel(flags.parallel),
          parallelIsDefault: flags.parallel === undefined,
          signal,
        }),
      );
      if (flags.json) console.log(JSON.stringify(matrix));
      else {
        console.log(formatKillMatrix(matrix));
        console.log(`\nreport: ${relative(process.cwd(), dir) || dir}/mutants.html`);
      }
      process.exitCode = matrix.ok ? 0 : 1;
    });
}

/**
 * What `leaseproof mutants` does, loaded only when it runs (mutants-command.ts defines the verb).
 */
import { relative } from 'node:path';
import { ConfigError } from '../errors.js';
import { formatKillMatrix } from '../report/kill-matrix-text.js';
import { runMutants } from '../mutants/run-mutants.js';
import { withShutdownSignal } from './shutdown.js';
import { defaultScenarioFiles } from './scenario-folder.js';
import { parseParallel } from '../scale-out/parallelism.js';

/** The flags of `mutants`, as commander parses them. */
export interface MutantsFlags {
  queue: string;
  scenarios?: string;
  variant?: string[];
  control?: string[];
  minKills: string;
  out: string;
  env?: string;
  iOwnThisDatabase?: boolean;
  json?: boolean;
  parallel?: string;
  full?: boolean;
}

const say = (line: string): void => void process.stderr.write(line + '\n');

/** Runs the suite on the base queue and each variant, prints the kill matrix, sets the exit. */
export async function mutants(flags: MutantsFlags): Promise<void> {
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
      controls: flags.control,
      minKills,
      full: flags.full,
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
}

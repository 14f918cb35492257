/**
 * The `--parallel` flag of the verbs that run side by side (run, suite, explore, mutants). It
 * lives with the CLI: `scale-out/` decides the default and parses the number, and knows nothing
 * of commander.
 */
import { Option } from 'commander';
import { RUNS_PER_CORE, defaultParallelism } from '../scale-out/parallelism.js';

/** The `--parallel <n>` flag, its help naming what runs side by side and the default here. */
export function parallelOption(what: string): Option {
  return new Option(
    '--parallel <n>',
    `${what} side by side (default ${defaultParallelism()}: ${RUNS_PER_CORE} per core)`,
  );
}

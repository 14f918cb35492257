import type { RunScenariosOptions } from '../run/run-scenarios.js';

/** What a matrix passes on to each of its suite runs, as `leaseproof mutants` was given it. */
export type SuiteOptions = Pick<
  RunScenariosOptions,
  | 'out'
  | 'env'
  | 'epsilonMs'
  | 'iOwnThisDatabase'
  | 'log'
  | 'parallel'
  | 'parallelIsDefault'
  | 'signal'
>;

/** The suite options among `options`: the same for the full matrix and every guided round. */
export function suiteOptions(options: SuiteOptions): SuiteOptions {
  const { out, env, epsilonMs, iOwnThisDatabase, log, parallel, parallelIsDefault, signal } =
    options;
  return { out, env, epsilonMs, iOwnThisDatabase, log, parallel, parallelIsDefault, signal };
}

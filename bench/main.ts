// `npm run bench`: prints one JSON object per line, {"metric", "value", "unit", ...}.
// Figures, not pass/fail: targets are stated next to them, never asserted in tests.
import { benchCheckerThroughput } from './checker-throughput.js';
import { benchCliStartup } from './cli-startup.js';
import { benchEnvStartup } from './env-startup.js';
import { benchExplore } from './explore.js';
import { benchFlake } from './flake.js';
import { benchFlakeDemo } from './flake-demo.js';
import { benchLibrarySuites } from './library-suites.js';
import { benchMutants } from './mutants.js';
import { benchQueueThroughput } from './queue-throughput.js';
import { benchSim } from './sim.js';
import { benchSuiteTime } from './suite-time.js';
import { benchTune } from './tune.js';

const only = process.argv[2];
const benches: Record<string, () => Promise<void>> = {
  env: () => benchEnvStartup(),
  queue: () => benchQueueThroughput(),
  suite: () => benchSuiteTime(),
  checkers: () => benchCheckerThroughput(),
  explore: () => benchExplore(),
  tune: () => benchTune(),
  sim: () => benchSim(),
  cli: () => benchCliStartup(),
};
// Opt-in only: each takes minutes (mutants) to a quarter of an hour or more.
const long: Record<string, () => Promise<void>> = {
  libraries: () => benchLibrarySuites(process.argv.slice(3)),
  mutants: () => benchMutants(process.argv.slice(3)),
  flake: () =>
    process.argv.includes('--demo')
      ? benchFlakeDemo(process.argv.slice(3))
      : benchFlake(process.argv.slice(3)),
};
if (only !== undefined && long[only] !== undefined) await long[only]();
else if (only !== undefined && benches[only] === undefined) {
  console.error(
    `unknown bench "${only}"; known: ${[...Object.keys(benches), ...Object.keys(long)].join(', ')}`,
  );
  process.exitCode = 2;
} else {
  for (const [name, run] of Object.entries(benches)) {
    if (only === undefined || only === name) await run();
  }
}

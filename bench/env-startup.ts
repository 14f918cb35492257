import { EmbeddedEnvironmentProvider } from '../src/env/embedded-env.js';
import { median, report } from './stats.js';

/**
 * Time until the embedded environment is ready (both servers answer), and its teardown time,
 * over several starts. Target: ready <= 2 s median on the project's two-core machine.
 */
export async function benchEnvStartup(runs = 7): Promise<void> {
  const ready: number[] = [];
  const teardown: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    const env = await new EmbeddedEnvironmentProvider().start();
    ready.push(performance.now() - started);
    const stopping = performance.now();
    await env.stop();
    teardown.push(performance.now() - stopping);
  }
  const round = (values: number[]): number[] => values.map((v) => Math.round(v));
  report({
    metric: 'embedded_env_ready',
    value: Math.round(median(ready)),
    unit: 'ms',
    stat: 'median',
    runs,
    samples: round(ready),
    target: '<= 2000',
  });
  report({
    metric: 'embedded_env_teardown',
    value: Math.round(median(teardown)),
    unit: 'ms',
    stat: 'median',
    runs,
    samples: round(teardown),
  });
}

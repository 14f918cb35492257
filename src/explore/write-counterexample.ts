/** Writes a minimal counterexample as a scenario file that `leaseproof run` replays. */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { ExploredScenario } from './explored-scenario.js';
import { scenarioYaml } from './scenario-document.js';

/** What the file says about where it came from. */
export interface CounterexampleOrigin {
  /** The queue it failed. */
  queue: string;
  /** fast-check seed. */
  seed: number;
  /** fast-check's counterexample path. */
  path: string;
  /** The checkers it violated. */
  violated: string[];
  /** How it was confirmed. */
  note?: string;
  /** It reproduced on none of its replays: the file says so first. */
  unconfirmed?: boolean;
}

/** `reference`, `./adapters/my-queue.ts` → a name fit for a file and a scenario. */
export function queueSlug(queue: string): string {
  const base = basename(queue, extname(queue));
  return (
    base
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '') || 'queue'
  );
}

/**
 * Writes `<dir>/<queue>-<seed>-<n>.yaml` with the first free `n` (an earlier counterexample is
 * never overwritten) and returns its path.
 */
export async function writeCounterexample(
  dir: string,
  scenario: ExploredScenario,
  origin: CounterexampleOrigin,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const stem = `${queueSlug(origin.queue)}-${origin.seed}`;
  for (let n = 1; ; n += 1) {
    const name = `${stem}-${n}`;
    const file = join(dir, `${name}.yaml`);
    const text = scenarioYaml(scenario, {
      name,
      seed: origin.seed,
      description:
        (origin.unconfirmed === true
          ? `UNCONFIRMED failure found by leaseproof explore against ${origin.queue}, not a ` +
            `counterexample: its first run violated ${origin.violated.join(', ')}, no replay did. `
          : `Minimal counterexample found by leaseproof explore against ${origin.queue}: it ` +
            `violated ${origin.violated.join(', ')}. `) +
        `fast-check seed ${origin.seed}, path ` +
        `"${origin.path}" (replay the search with { seed: ${origin.seed}, path: "${origin.path}" }). ` +
        'Replay is at the level of the schedule: timing is real, not deterministic' +
        (origin.note === undefined ? '.' : `; ${origin.note}`),
    });
    try {
      await writeFile(file, text, { flag: 'wx' });
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

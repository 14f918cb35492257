import type { DocumentPath } from './document-path.js';
import { parseDuration } from '../duration.js';
import type { PathProblem } from './schema-problems.js';

/**
 * Reads values out of data that passed the schema, collecting what the schema cannot check as
 * problems instead of throwing at the first: a whole file's mistakes are reported at once. A
 * value that is wrong reads as a harmless stand-in (0 ms) so reading can go on.
 */
export class ScenarioReader {
  /** Everything found wrong so far, in reading order. */
  readonly problems: PathProblem[] = [];

  /** Records a problem. */
  problem(path: DocumentPath, found: string, expected: string): void {
    this.problems.push({ path, found, expected });
  }

  /**
   * A duration in ms. `signed` allows a sign (clock offsets); `positive` rejects zero (a lease,
   * a heartbeat period: a zero there is a typo, not a scenario).
   */
  ms(
    value: unknown,
    path: DocumentPath,
    options: { signed?: boolean; positive?: boolean } = {},
  ): number {
    let ms: number;
    try {
      ms = parseDuration(String(value), { signed: options.signed === true });
    } catch (error) {
      this.problem(path, JSON.stringify(value), (error as Error).message);
      return 0;
    }
    if (options.positive && ms <= 0)
      this.problem(path, JSON.stringify(value), 'a duration above 0');
    return ms;
  }

  /** A worker id (`w2`) for a worker number, which must be one of the scenario's `workers`. */
  workerId(value: unknown, path: DocumentPath, workers: number): string {
    const n = value as number;
    if (n > workers) {
      this.problem(
        path,
        `worker ${n}`,
        `a worker number from 1 to ${workers} (the scenario has workers: ${workers})`,
      );
    }
    return `w${n}`;
  }
}

import { LeaseproofError } from '../errors.js';

/** One thing wrong with a scenario file. */
export interface ScenarioProblem {
  /** Where in the document, e.g. `faults[2].pause.for`; empty for the document itself. */
  path: string;
  /** 1-based line in the file, when known. */
  line?: number;
  /** 1-based column in the file, when known. */
  column?: number;
  /** What is there, e.g. `"5 sec"`, `nothing`, `unknown property "pauze"`. */
  found: string;
  /** What should be there, e.g. `a duration like 500ms, 2s, 1m30s or 1h`. */
  expected: string;
}

/** How many problems a message lists before it says how many more there are. */
const SHOWN = 10;

/**
 * A scenario file that cannot be run: unreadable, not YAML, not the schema's shape, or
 * inconsistent (a fault on worker 5 of 4). One error for the whole file, listing every problem
 * found (the first ten in the message, all in `problems`), each on its own line as
 * `file:line:column: path: found …; expected …`, a form editors and terminals link to.
 */
export class ScenarioError extends LeaseproofError {
  constructor(
    /** The file, as it was named to the loader. */
    readonly file: string,
    /** Every problem, in file order. */
    readonly problems: readonly ScenarioProblem[],
    options?: { cause?: unknown; kind?: string },
  ) {
    super('LEASEPROOF_BAD_SCENARIO', formatMessage(file, problems, options?.kind), options);
  }
}

function formatMessage(
  file: string,
  problems: readonly ScenarioProblem[],
  kind = 'scenario',
): string {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  const lines = problems.slice(0, SHOWN).map((p) => `  ${formatProblem(file, p)}`);
  if (problems.length > SHOWN) lines.push(`  … and ${problems.length - SHOWN} more`);
  return [`invalid ${kind} ${file} (${count}):`, ...lines].join('\n');
}

/** `file:line:column: path: found …; expected …` */
export function formatProblem(file: string, problem: ScenarioProblem): string {
  const where =
    problem.line === undefined ? file : `${file}:${problem.line}:${problem.column ?? 1}`;
  const path = problem.path === '' ? '' : `${problem.path}: `;
  return `${where}: ${path}found ${problem.found}; expected ${problem.expected}`;
}

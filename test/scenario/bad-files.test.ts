import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LeaseproofError } from '../../src/errors.js';
import { loadScenario } from '../../src/scenario/load-scenario.js';
import { ScenarioError, type ScenarioProblem } from '../../src/scenario/scenario-error.js';

// The YAML syntax error is a .txt file: Prettier's format check would fail on it as .yaml.
const bad = (name: string): string =>
  fileURLToPath(
    new URL(`./fixtures/bad/${name}${name === 'yaml-syntax' ? '.txt' : '.yaml'}`, import.meta.url),
  );

/** Loads a file that must fail; returns its one error. */
async function failure(file: string): Promise<ScenarioError> {
  const error = await loadScenario(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ScenarioError);
  expect(error).toBeInstanceOf(LeaseproofError);
  return error as ScenarioError;
}

/** One expected problem: exact path and line, and what found/expected must say. */
interface Expected {
  path: string;
  line: number | undefined;
  found: string | RegExp;
  expected: string | RegExp;
}

// One file per kind of mistake, each with the one problem it must be reported as.
const CASES: Record<string, Expected> = {
  'yaml-syntax': {
    path: '',
    line: 3,
    found: /^a YAML syntax error \(Flow map .*\)$/,
    expected: 'valid YAML',
  },
  'duplicate-key': {
    path: '',
    line: 3,
    found: 'a YAML syntax error (Map keys must be unique)',
    expected: 'valid YAML',
  },
  empty: {
    path: '',
    line: undefined,
    found: 'an empty document',
    expected: 'a scenario with name, lease, workers, jobs and check',
  },
  'bad-duration': {
    path: 'faults[2].pause.for',
    line: 10,
    found: '"5 sec"',
    expected: /^a duration like 500ms, 2s or 1m30s \(no spaces/,
  },
  'unit-missing': {
    path: 'faults[0].pause.for',
    line: 8,
    found: '500',
    expected: 'a duration like 500ms, 2s or 1m30s (a unit is required: "500ms" or "500s"?)',
  },
  'sign-not-allowed': {
    path: 'faults[0].at',
    line: 8,
    found: '"-1s"',
    expected: /no sign: only clock offsets take one/,
  },
  'missing-required': {
    path: 'lease.heartbeat',
    line: 2,
    found: 'nothing',
    expected: /^a duration like 500ms, 2s or 1m30s \(how often a worker's heartbeat extends/,
  },
  'unknown-property': {
    path: 'lease.pol',
    line: 2,
    found: 'unknown property "pol"',
    expected: 'one of duration, heartbeat, extendBy, poll (did you mean "poll"?)',
  },
  'unknown-checker': {
    path: 'check[1]',
    line: 7,
    found: '"single-completions"',
    expected: /^one of no-stale-ack, .* \(did you mean "single-completion"\?\)$/,
  },
  'unknown-worker': {
    path: 'faults[1].pause.worker',
    line: 9,
    found: 'worker 5',
    expected: 'a worker number from 1 to 4 (the scenario has workers: 4)',
  },
  'unknown-fault-kind': {
    path: 'faults[0].pauze',
    line: 8,
    found: 'unknown property "pauze"',
    expected: /^one of at, partition, .* \(did you mean "pause"\?\)$/,
  },
  'two-fault-kinds': {
    path: 'faults[0]',
    line: 8,
    found: '2 fault kinds (pause, crash)',
    expected: /^"at" and exactly one of partition, latency, /,
  },
  'worker-and-workers': {
    path: 'faults[0].latency',
    line: 8,
    found: 'both "worker" and "workers"',
    expected: 'exactly one of "worker" or "workers"',
  },
  'bad-enum': {
    path: 'faults[0].partition.mode',
    line: 8,
    found: '"blackhol"',
    expected: 'one of blackhole, reset, down (did you mean "blackhole"?)',
  },
  'wrong-type': {
    path: 'workers',
    line: 3,
    found: '"four"',
    expected: /^an integer \(how many worker processes run/,
  },
  'repeated-worker': {
    path: 'faults[0].partition.workers[1]',
    line: 8,
    found: 'a repeat of item 0',
    expected: 'each item once',
  },
  'zero-lease': {
    path: 'lease.duration',
    line: 2,
    found: '"0s"',
    expected: 'a duration above 0',
  },
  'lognormal-order': {
    path: 'jobs.handler.unit.p999',
    line: 6,
    found: '40ms, below p50 400ms',
    expected: /^p999 >= p50/,
  },
};

const matches = (actual: string, expected: string | RegExp): boolean =>
  typeof expected === 'string' ? actual === expected : expected.test(actual);

describe('a bad scenario file is one ScenarioError naming the file, the path, what was found and what was expected', () => {
  for (const [name, want] of Object.entries(CASES)) {
    it(name, async () => {
      const file = bad(name);
      const error = await failure(file);
      expect(error.code).toBe('LEASEPROOF_BAD_SCENARIO');
      expect(error.file).toBe(file);
      expect(error.problems).toHaveLength(1);
      const [problem] = error.problems as [ScenarioProblem];
      expect(problem.path).toBe(want.path);
      expect(problem.line).toBe(want.line);
      expect(matches(problem.found, want.found), problem.found).toBe(true);
      expect(matches(problem.expected, want.expected), problem.expected).toBe(true);
      // The message: a header naming the file, then the problem as file:line:column: path: …
      const [header, line, ...rest] = error.message.split('\n');
      expect(header).toBe(`invalid scenario ${file} (1 problem):`);
      const where = want.line === undefined ? file : `${file}:${want.line}:${problem.column}`;
      expect(line).toBe(
        `  ${where}: ${want.path === '' ? '' : `${want.path}: `}found ${problem.found}; expected ${problem.expected}`,
      );
      expect(rest).toEqual([]);
      // Never a stack trace in what a person reads.
      expect(error.message).not.toMatch(/\n\s+at /);
    });
  }

  it('reports every problem of a file in file order, each on its own line, the first ten in the message', async () => {
    const file = bad('many-problems');
    const error = await failure(file);
    expect(error.problems.map((p) => p.path)).toEqual([
      'name',
      'lease.duration',
      'lease.heartbeat',
      'workers',
      'jobs.count',
      'jobs.handler.units',
      'jobs.handler.unit.dist',
      'faults[0].at',
      'faults[0].pause.worker',
      'faults[1].stall.for',
      'faults[2].crash.restartAfter',
      'faults[3].clock.offset',
      'check',
      'drainTimeout',
    ]);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe(`invalid scenario ${file} (14 problems):`);
    expect(lines.slice(1, 11).every((l) => l.startsWith(`  ${file}:`))).toBe(true);
    expect(lines[11]).toBe('  … and 4 more');
    expect(lines).toHaveLength(12);
    const lineNumbers = error.problems.map((p) => p.line ?? 0);
    expect(lineNumbers).toEqual([...lineNumbers].sort((a, b) => a - b));
  });

  it('reports a property that does not belong to the chosen distribution, and one it lacks', async () => {
    const error = await failure(bad('wrong-dist-params'));
    expect(error.problems.map((p) => `${p.path}: ${p.found}`)).toEqual([
      'jobs.handler.unit.max: nothing',
      'jobs.handler.unit.p50: unknown property "p50"',
    ]);
    expect(error.problems[1]?.expected).toBe('one of dist, min, max');
  });

  it('names a file that does not exist', async () => {
    const file = bad('no-such-file');
    const error = await failure(file);
    expect(error.message).toBe(
      `invalid scenario ${file} (1 problem):\n  ${file}: found no such file; expected a readable YAML file`,
    );
  });
});

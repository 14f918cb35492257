// A harness failure in one run (its workers never start) is that cell's `error`, with its cause:
// the other runs finish, are judged and reported, and the report names what was not judged.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenarios } from '../../src/run/run-scenarios.js';
import type { VerdictFile } from '../../src/report/verdict-types.js';

const BROKEN = new URL('../fixtures/queue-that-fails-in-workers.ts', import.meta.url).pathname;

describe('a run that fails in the harness', () => {
  it(
    'is an error cell with its cause; the others are judged and the report is complete',
    { timeout: 240_000 },
    async () => {
      const out = await mkdtemp(join(tmpdir(), 'leaseproof-error-cells-'));
      const lines: string[] = [];
      const result = await runScenarios({
        files: ['scenarios/crash-mid-handler.yaml'],
        queues: [BROKEN, 'reference', 'unconditional-ack'],
        out,
        log: (line) => lines.push(line),
        parallel: 2,
      });
      const [broken, reference, bad] = result.outcomes;
      expect(result.outcomes).toHaveLength(3);
      expect(broken?.error).toMatch(/did not start[\s\S]*cannot start in a worker process/);
      expect(broken?.result.valid).toBe('unknown');
      expect(reference?.error).toBeUndefined();
      expect(reference?.result.valid).toBe('valid');
      expect(bad?.error).toBeUndefined();
      expect(bad?.result.results.length).toBeGreaterThan(0);
      expect(lines.join('\n')).toMatch(/queue-that-fails-in-workers\.ts: error \(not judged\)/);
      // Run again once, alone, after the others (a harness failure may be the machine's
      // load); this one is the queue's own and fails the same way.
      expect(lines.join('\n')).toMatch(
        /crash-mid-handler × .*queue-that-fails-in-workers\.ts: not judged because the harness failed \(.*did not start.*\); running it again alone, attempt 2 of 2/,
      );
      expect(broken?.attempts).toBe(2);

      const verdict = JSON.parse(
        await readFile(join(result.dir, 'verdict.json'), 'utf8'),
      ) as VerdictFile;
      expect(verdict.scenarios.map((s) => s.queue)).toEqual(['reference', 'unconditional-ack']);
      expect(verdict.notJudged).toEqual([
        expect.objectContaining({
          name: 'crash-mid-handler',
          queue: BROKEN,
          verdict: 'error',
          position: 0,
          attempts: 2,
          cause: expect.stringMatching(/cannot start in a worker process/) as string,
        }),
      ]);
      // Not judged is never a pass.
      expect(verdict.verdict).not.toBe('valid');
      const summary = await readFile(join(result.dir, 'summary.md'), 'utf8');
      expect(summary).toMatch(
        /## Not judged[\s\S]*crash-mid-handler × .*2 attempts\): error — .*did not start/,
      );
      const junit = await readFile(join(result.dir, 'junit.xml'), 'utf8');
      expect(junit).toMatch(/<error message="[^"]*did not start[^"]*" type="error">/);
      expect(result.paths.scenarios).toHaveLength(2);
    },
  );
});

/**
 * Judges `--expect` into a run folder the runner has already written: verdict.json gains its
 * `expectations` and summary.md is rendered again from it, so the two cannot disagree (nor
 * with the exit code, decided from the value returned). The runner writes its report before
 * the command sees `--expect`; a runner that takes them (`RunReport.expectations`) makes this
 * step unnecessary, and the files come out the same.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { judgeExpectations } from './expectations.js';
import { renderSummary } from './summary-markdown.js';
import { renderVerdictJson } from './verdict-json.js';
import type { ExpectedVerdict, VerdictExpectations, VerdictFile } from './verdict-types.js';

/** Adds `expected`, judged over the run's scenarios, to the report in `dir`; returns them. */
export async function addExpectations(
  dir: string,
  expected: readonly ExpectedVerdict[],
): Promise<VerdictExpectations> {
  const file = join(dir, 'verdict.json');
  const verdict = JSON.parse(await readFile(file, 'utf8')) as VerdictFile;
  const expectations = judgeExpectations(
    [...verdict.scenarios, ...(verdict.notJudged ?? [])],
    expected,
  );
  const updated: VerdictFile = { ...verdict, expectations };
  await writeFile(file, renderVerdictJson(updated));
  await writeFile(join(dir, 'summary.md'), renderSummary(updated));
  return expectations;
}

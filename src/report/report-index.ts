/**
 * `reports/index.html`: every run in a reports folder, newest first, with its verdict and links
 * to its files. It is rebuilt from the folders present (each run's verdict.json), so deleting a
 * run's folder and rebuilding drops it, and nothing else has to be kept in step.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { escapeHtml as h } from './escape.js';
import { expectationsLine } from './expectations.js';
import { VERDICT_VERSION, type VerdictFile } from './verdict-types.js';
import { KILL_MATRIX_STYLE, killMatrixTable } from './kill-matrix-html.js';
import { KILL_MATRIX_VERSION, type KillMatrix } from './kill-matrix-types.js';

/** A run folder as the index lists it. */
interface IndexedRun {
  folder: string;
  verdict: VerdictFile | undefined;
  problem?: string;
  /** The run's mutation matrix, when it was a `leaseproof mutants` run. */
  matrix?: KillMatrix;
}

/**
 * Rebuilds `<reportsDir>/index.html` from the run folders in it and returns its path. A folder
 * without a readable verdict.json (a run still going, or one that died) is listed as such.
 */
export async function updateReportIndex(reportsDir: string): Promise<string> {
  await mkdir(reportsDir, { recursive: true });
  const entries = await readdir(reportsDir, { withFileTypes: true });
  const runs = await Promise.all(
    entries.filter((e) => e.isDirectory()).map((e) => readRun(reportsDir, e.name)),
  );
  runs.sort(
    (a, b) =>
      (b.verdict?.startedAt ?? '').localeCompare(a.verdict?.startedAt ?? '') ||
      b.folder.localeCompare(a.folder),
  );
  const file = join(reportsDir, 'index.html');
  await writeFile(file, renderReportIndex(runs));
  return file;
}

async function readRun(reportsDir: string, folder: string): Promise<IndexedRun> {
  let text: string;
  try {
    text = await readFile(join(reportsDir, folder, 'verdict.json'), 'utf8');
  } catch {
    return { folder, verdict: undefined, problem: 'no verdict.json (unfinished or not a run)' };
  }
  try {
    const verdict = JSON.parse(text) as VerdictFile;
    if (verdict.verdictVersion !== VERDICT_VERSION) {
      return {
        folder,
        verdict: undefined,
        problem: `verdict version ${String(verdict.verdictVersion)}`,
      };
    }
    const matrix = await readMatrix(join(reportsDir, folder, 'mutants.json'));
    return { folder, verdict, ...(matrix && { matrix }) };
  } catch (error) {
    return { folder, verdict: undefined, problem: `unreadable verdict.json (${String(error)})` };
  }
}

/** A run's `mutants.json`, if it has a readable one of this version. */
async function readMatrix(file: string): Promise<KillMatrix | undefined> {
  try {
    const matrix = JSON.parse(await readFile(file, 'utf8')) as KillMatrix;
    return matrix.version === KILL_MATRIX_VERSION ? matrix : undefined;
  } catch {
    return undefined;
  }
}

function renderReportIndex(runs: IndexedRun[]): string {
  // The newest mutation matrix is shown above the list: it is the suite's own report card.
  const latest = runs.find((r) => r.matrix !== undefined);
  const matrix =
    latest?.matrix === undefined
      ? ''
      : `<h2>Mutation matrix <span class="muted">(${h(latest.folder)})</span></h2>
${killMatrixTable(latest.matrix, `${encodeURIComponent(latest.folder)}/`)}`;
  const rows = runs.map((r) =>
    r.verdict === undefined ? brokenRow(r) : runRow(r.folder, r.verdict, r.matrix !== undefined),
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>leaseproof reports</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1f2933; }
table { border-collapse: collapse; } th, td { border-bottom: 1px solid #e3e7ec; padding: 4px 10px; text-align: left; vertical-align: top; }
.valid { color: #2e7d32; } .invalid { color: #d50000; font-weight: 600; } .unknown, .muted { color: #616161; }
ul { margin: 0; padding-left: 16px; }
.expect { font-weight: 400; font-size: 13px; } .expect.met { color: #2e7d32; } .expect.not-met { color: #d50000; } .expect.not-judged { color: #616161; }
${KILL_MATRIX_STYLE}
</style>
</head>
<body>
<h1>leaseproof reports</h1>
${matrix}
${
  runs.length === 0
    ? '<p>No runs yet.</p>'
    : `<table>
<thead><tr><th>run</th><th>started</th><th>verdict</th><th>scenarios</th><th>files</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`
}
</body>
</html>
`;
}

function runRow(folder: string, v: VerdictFile, matrix: boolean): string {
  const base = encodeURIComponent(folder);
  const scenarios = v.scenarios.map(
    (s) =>
      `<li><a href="${base}/${h(encodeURI(s.files.timeline))}">${h(s.label)}</a> <span class="${s.verdict}">${s.verdict}</span></li>`,
  );
  const names = ['summary.md', 'verdict.json', 'junit.xml'];
  const files = (matrix ? [...names, 'mutants.html'] : names).map(
    (f) => `<a href="${base}/${f}">${f}</a>`,
  );
  // A run with --expect says under its verdict whether it proved what it was for.
  const expected =
    v.expectations === undefined
      ? ''
      : `<div class="expect ${v.expectations.outcome}">${h(expectationsLine(v.expectations))}</div>`;
  return `<tr><td>${h(v.runId)}</td><td>${h(v.startedAt)}</td><td class="${v.verdict}">${v.verdict}${expected}</td><td><ul>${scenarios.join('')}</ul></td><td>${files.join(' · ')}</td></tr>`;
}

function brokenRow(r: IndexedRun): string {
  return `<tr><td>${h(r.folder)}</td><td></td><td class="muted">—</td><td class="muted" colspan="2">${h(r.problem ?? '')}</td></tr>`;
}

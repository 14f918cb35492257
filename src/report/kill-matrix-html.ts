import { escapeHtml as h } from './escape.js';
import { fileStem } from './scenario-labels.js';
import { scenarioFiles } from './verdict-json.js';
import { cellMark } from './kill-matrix-text.js';
import type { KillCell, KillMatrix } from './kill-matrix-types.js';

/** Inline styles of the matrix, shared by its own page and the reports index. */
export const KILL_MATRIX_STYLE = `
.matrix td.cell { text-align: center; font-family: ui-monospace, monospace; padding: 2px 6px; }
.matrix td.K { background: #e8f5e9; color: #1b5e20; font-weight: 600; }
.matrix td.x { background: #fff3e0; color: #e65100; }
.matrix td.fa { background: #ffebee; color: #b71c1c; font-weight: 600; }
.matrix th.s { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: normal; white-space: nowrap; }
`;

/**
 * The matrix as an HTML table: a row per queue, a column per scenario, each cell linking to that
 * run's timeline (`base` is the run folder's URL from where the table is shown, '' on its own
 * page), with the invalid checkers in its tooltip.
 */
export function killMatrixTable(matrix: KillMatrix, base: string): string {
  const link = (queue: string, cell: KillCell, cls: string): string => {
    const sim = cell.simulated;
    const simulated =
      sim === undefined
        ? ''
        : 'refused' in sim
          ? `; simulation: not modelled (${sim.refused})`
          : `; simulation: ${sim.invalid.length > 0 ? `invalid: ${sim.invalid.join(', ')}` : sim.verdict}`;
    if (cell.notRun !== undefined) {
      return `<td class="cell" title="${h(cell.notRun + simulated)}">${h(cellMark(cell))}</td>`;
    }
    const file = scenarioFiles(fileStem(`${cell.scenario} [${queue}]`)).timeline;
    const title =
      (cell.invalid.length > 0 ? `invalid: ${cell.invalid.join(', ')}` : cell.verdict) + simulated;
    // A cell of another round of a guided matrix has its timeline in that round's folder.
    const folder = cell.report === undefined ? '' : `../${encodeURIComponent(cell.report)}/`;
    const href = `${base}${folder}${encodeURI(file)}`;
    return `<td class="cell ${cls}" title="${h(title)}"><a href="${h(href)}">${h(cellMark(cell))}</a></td>`;
  };
  const head = matrix.scenarios.map((s) => `<th class="s">${h(s)}</th>`).join('');
  const baseRow = `<tr><th>${h(matrix.base.queue)}</th>${matrix.base.cells
    .map((c) => link(matrix.base.queue, c, c.verdict === 'valid' ? '' : 'fa'))
    .join(
      '',
    )}<td>${matrix.base.falseAlarms.length === 0 ? 'clean' : '<b>false alarm</b>'}</td><td></td><td>base</td></tr>`;
  const controlRows = (matrix.controls ?? []).map(
    (c) =>
      `<tr><th>${h(c.queue)}</th>${c.cells
        .map((cell) => link(c.queue, cell, cell.verdict === 'valid' ? '' : 'fa'))
        .join(
          '',
        )}<td>${c.falseAlarms.length === 0 ? 'clean' : '<b>false alarm</b>'}</td><td></td><td>correct control</td></tr>`,
  );
  const rows = matrix.variants.map((v) => {
    const status = v.status === 'killed' && matrix.weak.includes(v.queue) ? 'weak' : v.status;
    const cells = v.cells
      .map((c) => link(v.queue, c, cellMark(c) === 'K' ? 'K' : cellMark(c) === 'x' ? 'x' : ''))
      .join('');
    return `<tr><th>${h(v.queue)}</th>${cells}<td>${h(status)}</td><td>${v.kills}</td><td>${h(v.catches)} — ${h(v.change)}</td></tr>`;
  });
  return `<table class="matrix">
<thead><tr><th>queue</th>${head}<th>status</th><th>kills</th><th>must be caught by</th></tr></thead>
<tbody>
${[baseRow, ...controlRows, ...rows].join('\n')}
</tbody>
</table>
<p>Mutation score <b>${matrix.score.percent}%</b> (${matrix.score.killed}/${matrix.score.total} killed) ·
K: caught by the invariant that names the bug · x: caught by another invariant only · .: valid ·
${(matrix.wallTimeMs / 1000).toFixed(1)}s wall time</p>`;
}

/** The matrix's own page, `mutants.html` in the run folder. */
export function renderKillMatrixHtml(matrix: KillMatrix, runId: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>leaseproof mutants — ${h(runId)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1f2933; }
table { border-collapse: collapse; } th, td { border-bottom: 1px solid #e3e7ec; padding: 4px 8px; text-align: left; }
${KILL_MATRIX_STYLE}
</style>
</head>
<body>
<h1>Mutation matrix — ${h(runId)}</h1>
${killMatrixTable(matrix, '')}
</body>
</html>
`;
}

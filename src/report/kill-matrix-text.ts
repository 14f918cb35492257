import type { KillCell, KillMatrix } from './kill-matrix-types.js';

/**
 * The mark of one cell: the named invariant caught it, another did, it passed, or unknown; a
 * cell not run for real shows what the simulation said (`s` killed there, `-` not).
 */
export function cellMark(cell: KillCell): string {
  if (cell.notRun !== undefined) {
    const sim = cell.simulated;
    return sim !== undefined && 'named' in sim && sim.named ? 's' : '-';
  }
  if (cell.named) return 'K';
  if (cell.verdict === 'invalid') return 'x';
  return cell.verdict === 'valid' ? '.' : '?';
}

/**
 * The matrix as text: one row per queue (the base first), one column per scenario (numbered, with
 * a legend below), then each variant's status, its kills and the invariant that must catch it;
 * then the score and the wall time.
 */
export function formatKillMatrix(matrix: KillMatrix): string {
  const numbers = matrix.scenarios.map((_, i) => String(i + 1));
  const width = Math.max(2, ...numbers.map((n) => n.length + 1));
  const controls = matrix.controls ?? [];
  const names = [
    matrix.base.queue,
    ...controls.map((c) => c.queue),
    ...matrix.variants.map((v) => v.queue),
  ];
  const nameWidth = Math.max(7, ...names.map((n) => n.length));
  const grid = (cells: KillCell[]): string =>
    cells.map((c) => cellMark(c).padStart(width)).join('');
  const lines = [
    `${'queue'.padEnd(nameWidth)}  ${numbers.map((n) => n.padStart(width)).join('')}   status         kills  must be caught by`,
  ];
  const base = matrix.base;
  lines.push(
    `${base.queue.padEnd(nameWidth)}  ${grid(base.cells)}   ${(base.falseAlarms.length === 0 ? 'clean' : 'FALSE ALARM').padEnd(13)}  -      (none: the base)`,
  );
  for (const c of controls) {
    lines.push(
      `${c.queue.padEnd(nameWidth)}  ${grid(c.cells)}   ${(c.falseAlarms.length === 0 ? 'clean' : 'FALSE ALARM').padEnd(13)}  -      (none: a correct control)`,
    );
  }
  for (const v of matrix.variants) {
    const status = v.status === 'killed' && matrix.weak.includes(v.queue) ? 'weak' : v.status;
    lines.push(
      `${v.queue.padEnd(nameWidth)}  ${grid(v.cells)}   ${status.padEnd(13)}  ${String(v.kills).padEnd(5)}  ${v.catches} — ${v.change}`,
    );
  }
  lines.push(
    '',
    'K caught by the invariant that names the bug · x caught by another invariant only · . valid · ? unknown' +
      (matrix.guide === undefined
        ? ''
        : ' · s killed in simulation, not run for real · - not run for real'),
  );
  for (const [i, s] of matrix.scenarios.entries()) lines.push(`${String(i + 1).padStart(3)}  ${s}`);
  lines.push('');
  if (base.falseAlarms.length > 0) {
    lines.push(`false alarm: ${base.queue} was not valid on ${base.falseAlarms.join(', ')}`);
  }
  for (const c of controls) {
    if (c.falseAlarms.length > 0) {
      lines.push(
        `false alarm: ${c.queue} (a correct control) was not valid on ${c.falseAlarms.join(', ')}`,
      );
    }
  }
  for (const v of matrix.variants) {
    if (v.status === 'survived')
      lines.push(`survived: ${v.queue} (${v.change}) passed every scenario`);
    if (v.status === 'misattributed') {
      const by = [...new Set(v.cells.flatMap((c) => c.invalid))].join(', ');
      lines.push(`mis-attributed: ${v.queue} was caught only by ${by}, never by ${v.catches}`);
    }
  }
  if (matrix.weak.length > 0) {
    lines.push(`killed by fewer than ${matrix.minKills} scenarios: ${matrix.weak.join(', ')}`);
  }
  const { guide } = matrix;
  if (guide !== undefined) {
    for (const left of guide.leftToReal)
      lines.push(`left to real runs: ${left.queue}: ${left.why}`);
    lines.push(
      `guided by the simulation: ${guide.simulatedRuns} simulated runs in ` +
        `${(guide.simulatedMs / 1000).toFixed(1)}s, then ${guide.realRuns} real runs of the full ` +
        `matrix's ${guide.fullRuns} in ${guide.reports.length} round(s); only real runs kill ` +
        '(`mutants --full` runs every cell for real)',
    );
  }
  const seconds = (matrix.wallTimeMs / 1000).toFixed(1);
  lines.push(
    `mutation score ${matrix.score.percent}% (${matrix.score.killed}/${matrix.score.total} killed), ` +
      `${matrix.scenarios.length} scenarios × ${names.length} queues in ${seconds}s wall time`,
  );
  return lines.join('\n');
}

/** Text helpers of the timeline page: tooltips and the details panel are HTML strings. */

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `s` as text inside HTML: history strings (job ids, error details) may hold markup. */
export function esc(s: string | number): string {
  return String(s).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** `ms` to the microsecond, as the database clock keeps it. */
export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** A tooltip: the title in bold (escaped), then one line each (already HTML). */
export function tip(title: string, lines: readonly string[]): string {
  return '<b>' + esc(title) + '</b><br>' + lines.join('<br>');
}

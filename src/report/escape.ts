/**
 * Escaping for every format a report writes. Job ids, worker ids, scenario names and error
 * messages come from adapters and scenario files the harness does not control, so every string
 * that lands in XML, HTML or Markdown passes through here.
 */

/**
 * Characters XML 1.0 cannot carry at all, even as a character reference: C0 controls other
 * than tab / newline / return, lone surrogates, U+FFFE and U+FFFF.
 */
/* eslint-disable no-control-regex -- matching control characters is the point */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/* eslint-enable no-control-regex */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/**
 * Escapes `text` for XML element content and attribute values alike; characters XML cannot
 * carry become U+FFFD, so a stray control byte in an error message cannot make the file
 * unparseable.
 */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Escapes `text` for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === "'" ? '&#39;' : ENTITIES[c]!));
}

/**
 * `value` as JSON that is safe inside an HTML `<script>` element: `<` is written as `\u003c`,
 * so no string in the data can close the element (`</script>`) or open a comment, and the
 * line separators that older parsers choke on are escaped too. Non-finite numbers become null,
 * as JSON has no other way to say them.
 */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value, finiteOrNull)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A JSON replacer that writes NaN and ±Infinity as null (JSON.stringify does, but says so here). */
export function finiteOrNull(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? null : value;
}

/**
 * Escapes `text` for Markdown prose and table cells: punctuation Markdown would read as markup
 * is backslash-escaped, `<` `>` `&` become entities (renderers pass raw HTML through), and line
 * breaks become spaces (a newline would end a table row).
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r?\n|\r/g, ' ')
    .replace(/[\\`*_[\]#|~!]/g, (c) => `\\${c}`)
    .replace(/[&<>]/g, (c) => ENTITIES[c]!);
}

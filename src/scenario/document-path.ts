/** A path into a parsed document: property names and array indexes. */
export type DocumentPath = readonly (string | number)[];

/** Formats a path as a person reads it: `faults[2].pause.for` (empty for the document). */
export function formatPath(path: DocumentPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return text;
}

/** Parses a JSON Pointer (`/faults/2/pause`, as ajv reports paths) into a path. */
export function fromJsonPointer(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

/** Describes a value found in a document, briefly: `"5 sec"`, `42`, `a list`, `a mapping`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : typeof value;
}

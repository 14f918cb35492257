import type { ErrorObject } from 'ajv';
import { describeValue, fromJsonPointer, type DocumentPath } from './document-path.js';
import { resolveRef, type SchemaObject } from './scenario-schema.js';
import { closest } from '../suggest.js';

/** A problem before it is placed in the file: its path and whether it is about a key. */
export interface PathProblem {
  /** Where in the document. */
  path: DocumentPath;
  /** The problem is about the last key of `path` (an unknown property), not its value. */
  atKey?: boolean;
  /** What is there. */
  found: string;
  /** What should be there. */
  expected: string;
}

/**
 * Turns ajv's errors into problems a person can act on: `found "5 sec"; expected a duration
 * with a unit: 250us, 500ms, 2s…` rather than `must match pattern "^(\d+…"`. What is expected
 * comes from the schema's own descriptions, so the messages and the editor's help say the same.
 * Errors that only restate another (the branches of a `oneOf`, an `if` whose `then` failed)
 * are dropped.
 */
export function schemaProblems(errors: readonly ErrorObject[], root: SchemaObject): PathProblem[] {
  const compound = errors.filter((e) => e.keyword === 'oneOf');
  const restates = (e: ErrorObject): boolean =>
    e.keyword === 'if' ||
    compound.some(
      (c) =>
        c !== e && c.instancePath === e.instancePath && e.schemaPath.startsWith(`${c.schemaPath}/`),
    );
  return errors.filter((e) => !restates(e)).map((e) => toProblem(e, root));
}

function toProblem(error: ErrorObject, root: SchemaObject): PathProblem {
  const path = fromJsonPointer(error.instancePath);
  const parent = resolveRef(root, error.parentSchema ?? {});
  const definition = definitionName(root, error.parentSchema);
  const named =
    DEFINED_AS[definition ?? ''] === undefined
      ? undefined
      : `${DEFINED_AS[definition ?? '']}${durationHint(definition, error.data)}`;
  const about = firstSentence(parent.description);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const name = String(params.missingProperty);
      const property = propertySchema(root, parent, name);
      return {
        path: [...path, name],
        found: 'nothing',
        expected: expectation(property) ?? `"${name}"`,
      };
    }
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const allowed = Object.keys(parent.properties ?? {});
      const guess = closest(name, allowed);
      return {
        path: [...path, name],
        atKey: true,
        found: `unknown property "${name}"`,
        expected: oneOf(allowed, guess),
      };
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const guess = typeof error.data === 'string' ? closest(error.data, allowed) : undefined;
      return {
        path,
        found: describeValue(error.data),
        expected: oneOf(allowed, guess),
      };
    }
    case 'oneOf':
      return oneOfProblem(error, path);
    case 'minProperties':
    case 'maxProperties':
      return faultKindProblem(error, path, parent);
    case 'type':
      return {
        path,
        found: describeValue(error.data),
        expected:
          named ?? `${article(String(params.type))}${about ? ` (${lowerFirst(about)})` : ''}`,
      };
    case 'pattern':
      return {
        path,
        found: describeValue(error.data),
        expected: named ?? (about ? lowerFirst(about) : `text matching ${String(params.pattern)}`),
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        path,
        found: describeValue(error.data),
        expected: `a number ${String(params.comparison)} ${String(params.limit)}${about ? ` (${lowerFirst(about)})` : ''}`,
      };
    case 'minItems':
      return {
        path,
        found: describeValue(error.data),
        expected: `at least ${String(params.limit)} item(s)`,
      };
    case 'uniqueItems': {
      // ajv names the two equal items in either order; the later one is the repeat.
      const [first, repeat] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      return {
        path: [...path, repeat ?? 0],
        found: `a repeat of item ${first ?? 0}`,
        expected: 'each item once',
      };
    }
    default:
      return {
        path,
        found: describeValue(error.data),
        expected: error.message ?? 'something else',
      };
  }
}

/** `one of a, b, c (did you mean "b"?)` */
function oneOf(allowed: readonly string[], guess: string | undefined): string {
  return `one of ${allowed.join(', ')}${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`;
}

/** `oneOf` branches that each require one property: "exactly one of worker, workers". */
function oneOfProblem(error: ErrorObject, path: DocumentPath): PathProblem {
  const branches = (Array.isArray(error.schema) ? error.schema : []) as SchemaObject[];
  const names = branches.flatMap((b) =>
    Array.isArray(b.required) ? (b.required as string[]) : [],
  );
  const passing = (error.params as { passingSchemas: number[] | null }).passingSchemas;
  const listed = names.map((n) => `"${n}"`).join(' or ');
  return {
    path,
    found:
      passing === null
        ? `neither ${names.map((n) => `"${n}"`).join(' nor ')}`
        : `both ${names.map((n) => `"${n}"`).join(' and ')}`,
    expected: `exactly one of ${listed}`,
  };
}

/** A fault item must hold `at` and exactly one kind of fault. */
function faultKindProblem(
  error: ErrorObject,
  path: DocumentPath,
  parent: SchemaObject,
): PathProblem {
  const kinds = Object.keys(parent.properties ?? {}).filter((k) => k !== 'at');
  const present = Object.keys(error.data ?? {}).filter((k) => k !== 'at');
  return {
    path,
    found:
      present.length === 0
        ? 'no fault kind'
        : `${present.length} fault kinds (${present.join(', ')})`,
    expected: `"at" and exactly one of ${kinds.join(', ')}`,
  };
}

/** How the shared definitions read in a message, in place of their JSON types. */
const DEFINED_AS: Record<string, string> = {
  duration: 'a duration like 500ms, 2s or 1m30s',
  signedDuration: 'a signed duration like +90s, -1h or 0s',
  workerNumber: 'a worker number (1, 2, …)',
  workerList: 'a list of worker numbers like [1, 2]',
  direction: 'both, upstream or downstream',
  distribution: 'a distribution like { dist: fixed, duration: 50ms }',
};

/** Why a value is not a duration, when it looks like a common slip. */
function durationHint(definition: string | undefined, data: unknown): string {
  if (definition !== 'duration' && definition !== 'signedDuration') return '';
  if (typeof data === 'number') return ` (a unit is required: "${data}ms" or "${data}s"?)`;
  if (typeof data !== 'string') return '';
  if (definition === 'duration' && /^[+-]/.test(data))
    return ' (no sign: only clock offsets take one)';
  if (/\s/.test(data)) return ' (no spaces; the units are us, ms, s, m and h)';
  if (/^[+-]?\d+(\.\d+)?$/.test(data)) return ' (a unit is required: ms, s, m or h)';
  return '';
}

/** The name under `definitions` of `node`, or of the definition its `$ref` names. */
function definitionName(root: SchemaObject, node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const ref = (node as SchemaObject).$ref;
  if (ref !== undefined) return /^#\/definitions\/(.+)$/.exec(ref)?.[1];
  return Object.entries(root.definitions ?? {}).find(([, d]) => d === node)?.[0];
}

function propertySchema(
  root: SchemaObject,
  parent: SchemaObject,
  name: string,
): { schema: SchemaObject; named: string | undefined } | undefined {
  const property = parent.properties?.[name];
  if (typeof property !== 'object') return undefined;
  return {
    schema: resolveRef(root, property),
    named: DEFINED_AS[definitionName(root, property) ?? ''],
  };
}

/** What a property should hold, from its schema: "a duration like 500ms… (How long …)". */
function expectation(
  property: { schema: SchemaObject; named: string | undefined } | undefined,
): string | undefined {
  if (property === undefined) return undefined;
  const { schema, named } = property;
  const type = named ?? (typeof schema.type === 'string' ? article(schema.type) : undefined);
  const about = firstSentence(schema.description);
  if (type === undefined) return about;
  return about === undefined ? type : `${type} (${lowerFirst(about)})`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function article(type: string): string {
  const names: Record<string, string> = {
    object: 'a mapping',
    array: 'a list',
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
  };
  return type
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}

function firstSentence(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  // A sentence ends at a stop followed by a capital (or the end): "e.g. pause-past-lease" goes on.
  const match = /^(.*?[.!?])(\s+[A-Z]|$)/.exec(text);
  return (match?.[1] ?? text).replace(/\.$/, '');
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * Where the published JSON Schema of scenario files lives: `scenarios/schema.json` at the
 * package root (the same relative path from `src/scenario/` and from `dist/scenario/`). Editors
 * use it for completion and help; the loader validates against the very same file.
 */
export const SCENARIO_SCHEMA_PATH = fileURLToPath(
  new URL('../../scenarios/schema.json', import.meta.url),
);

/** A JSON Schema object, as far as the loader reads it. */
export interface SchemaObject {
  [keyword: string]: unknown;
  $ref?: string;
  description?: string;
  properties?: Record<string, SchemaObject | boolean>;
  definitions?: Record<string, SchemaObject>;
}

let schema: SchemaObject | undefined;
let validator: ValidateFunction | undefined;

/** The scenario schema, read once. */
export function scenarioSchema(): SchemaObject {
  schema ??= JSON.parse(readFileSync(SCENARIO_SCHEMA_PATH, 'utf8')) as SchemaObject;
  return schema;
}

/**
 * Validates parsed scenario data against the schema, collecting every error (not only the
 * first) with the schema and the data of each, which the messages are built from.
 */
export function validateScenarioShape(data: unknown): ErrorObject[] {
  validator ??= new Ajv({ allErrors: true, verbose: true, strict: true }).compile(scenarioSchema());
  return validator(data) ? [] : [...(validator.errors ?? [])];
}

/** Follows a local `$ref` (`#/definitions/duration`) to the schema it names. */
export function resolveRef(root: SchemaObject, node: SchemaObject): SchemaObject {
  let current = node;
  for (let depth = 0; current.$ref !== undefined && depth < 10; depth += 1) {
    const name = /^#\/definitions\/(.+)$/.exec(current.$ref)?.[1];
    const target = name === undefined ? undefined : root.definitions?.[name];
    if (target === undefined) return current;
    // A description next to the $ref says more about this use than the definition's own.
    current = { ...target, ...(current.description && { description: current.description }) };
  }
  return current;
}

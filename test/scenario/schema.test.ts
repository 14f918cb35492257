import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CHECKER_NAMES } from '../../src/checker/index.js';
import { DURATION_PATTERN, SIGNED_DURATION_PATTERN } from '../../src/duration.js';
import { FAULT_KINDS } from '../../src/faults/fault-kinds.js';
import { SCENARIO_DEFAULTS } from '../../src/scenario/build-scenario.js';
import { SCENARIO_SCHEMA_PATH, type SchemaObject } from '../../src/scenario/scenario-schema.js';

const schema = JSON.parse(readFileSync(SCENARIO_SCHEMA_PATH, 'utf8')) as SchemaObject;
const definitions = schema.definitions ?? {};

/** Every schema object in the document, with its JSON path. */
function* walk(node: unknown, path: string): Generator<[string, SchemaObject]> {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* walk(item, `${path}[${i}]`);
    return;
  }
  yield [path, node as SchemaObject];
  for (const [key, value] of Object.entries(node)) yield* walk(value, `${path}/${key}`);
}

/** The description an editor shows for a property: its own, or that of the definition it refers to. */
function descriptionOf(property: SchemaObject): string | undefined {
  if (property.description !== undefined) return property.description;
  const name = /^#\/definitions\/(.+)$/.exec(property.$ref ?? '')?.[1];
  return name === undefined ? undefined : definitions[name]?.description;
}

describe('scenarios/schema.json', () => {
  it('is a valid draft-07 JSON Schema that ajv compiles in strict mode', () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('identifies itself for editors: $id, title, description', () => {
    expect(schema.$id).toMatch(/^https:\/\//);
    expect(schema.title).toBe('leaseproof scenario');
    expect(schema.description).toMatch(/scenario/);
  });

  it('describes every property and every definition, for editor help', () => {
    const undocumented: string[] = [];
    for (const [path, node] of walk(schema, '#')) {
      for (const [name, property] of Object.entries(node.properties ?? {})) {
        if (typeof property === 'boolean') {
          undocumented.push(`${path}/properties/${name} (a bare boolean schema)`);
          continue;
        }
        // `if` conditions only test a value; they are never shown as a property's help.
        if (path.endsWith('/if')) continue;
        if (!descriptionOf(property)) undocumented.push(`${path}/properties/${name}`);
      }
    }
    for (const [name, definition] of Object.entries(definitions)) {
      if (!definition.description) undocumented.push(`#/definitions/${name}`);
    }
    expect(undocumented).toEqual([]);
  });

  it('lists exactly the checkers leaseproof has', () => {
    const check = schema.properties?.check as SchemaObject;
    expect((check.items as SchemaObject).enum).toEqual([...CHECKER_NAMES]);
  });

  it('lists exactly the fault kinds of the fault vocabulary', () => {
    const kinds = Object.keys(definitions.fault?.properties ?? {}).filter((k) => k !== 'at');
    expect(kinds).toEqual([
      'partition',
      'latency',
      'bandwidth',
      'slicer',
      'pause',
      'crash',
      'stop',
      'clock',
      'stall',
      'db-restart',
    ]);
    expect(kinds).toEqual([...FAULT_KINDS]);
  });

  it('publishes the duration patterns the parser accepts, and the defaults the loader applies', () => {
    expect(definitions.duration?.pattern).toBe(DURATION_PATTERN);
    expect(definitions.signedDuration?.pattern).toBe(SIGNED_DURATION_PATTERN);
    const properties = schema.properties ?? {};
    expect((properties.seed as SchemaObject).default).toBe(SCENARIO_DEFAULTS.seed);
    const lease = properties.lease as SchemaObject;
    expect((lease.properties?.poll as SchemaObject).default).toBe(`${SCENARIO_DEFAULTS.pollMs}ms`);
  });

  it("accepts design.md's example", () => {
    const text = readFileSync(
      fileURLToPath(new URL('./fixtures/design-example.yaml', import.meta.url)),
      'utf8',
    );
    const validate = new Ajv({ strict: true }).compile(schema);
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
  });
});

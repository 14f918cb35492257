// Parameters written into a statement as node-postgres would send them, and only where a real
// server would read a parameter: each case is a place a naive replace would get wrong.
import { describe, expect, it } from 'vitest';
import { inlineParams } from '../../../src/sim/pglite/inline-params.js';

describe('inlineParams', () => {
  it('writes each $n as a quoted literal, NULL for null, and refuses a missing one', () => {
    expect(inlineParams('UPDATE t SET a = $2 WHERE id = $1::bigint', [5, "it's"])).toBe(
      "UPDATE t SET a = 'it''s' WHERE id = '5'::bigint",
    );
    expect(inlineParams('SELECT $1, $10', [null, 2, 3, 4, 5, 6, 7, 8, 9, 'ten'])).toBe(
      "SELECT NULL, 'ten'",
    );
    expect(() => inlineParams('SELECT $2', [1])).toThrow(/no parameter \$2/);
  });

  it('serializes as node-postgres does: a Date, an array, an object, a Buffer', () => {
    const at = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
    const text = inlineParams('SELECT $1::timestamptz, $2::int[], $3::jsonb, $4', [
      at,
      [1, 2],
      { a: "b'" },
      Buffer.from([1, 255]),
    ]);
    expect(text).toMatch(/^SELECT '2026-01-01T\d\d:00:00\.000[+-]\d\d:\d\d'::timestamptz/);
    expect(text).toContain(`'{"1","2"}'::int[]`);
    expect(text).toContain(`'{"a":"b''"}'::jsonb`);
    expect(text).toContain(`'\\x01ff'::bytea`);
  });

  it('quotes backslashes as an E-string, so they stay what they were', () => {
    // node-postgres's escapeLiteral: ` E'a\\b'`, its leading space included.
    expect(inlineParams('SELECT $1', ['a\\b'])).toBe("SELECT  E'a\\\\b'");
  });

  it('leaves $n alone in strings, identifiers, comments, dollar quotes and identifiers', () => {
    const sql = [
      "SELECT '$1', E'\\'$1', \"col$1\", a$1, $1 -- $1",
      '/* $1 */ $$ $1 $$, $fn$ $1 $fn$, $2',
    ].join('\n');
    expect(inlineParams(sql, ['x', 'y'])).toBe(
      [
        "SELECT '$1', E'\\'$1', \"col$1\", a$1, 'x' -- $1",
        "/* $1 */ $$ $1 $$, $fn$ $1 $fn$, 'y'",
      ].join('\n'),
    );
  });
});

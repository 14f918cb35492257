/**
 * How the simulation brings a database back to the state a queue's setup left it in, without
 * running the setup again. Dropping every schema and running the setup (its DDL, the effects
 * table, the audit trigger) costs about a quarter of a short simulated run; emptying the tables,
 * putting back the rows the setup wrote and setting every sequence where the setup left it costs
 * a fraction of that, and gives the run the same database: same schema, same rows in the same
 * heap order, same sequences, no statistics (a truncated table has none, as a new one).
 *
 * Only while nothing has changed the schema since: a run whose statements did DDL (a queue that
 * makes a partition as it goes, a temporary table) would otherwise leave it to the next. The
 * catalog's fingerprint — every user object's definition, as the catalogs hold it — is taken
 * after the setup and compared before each restore; a difference means the setup runs again.
 */

/** The schema that keeps the setup's rows and the fingerprint function; no run's search path has it. */
export const SNAPSHOT_SCHEMA = 'leaseproof_sim_snapshot';

/** The catalogs that describe user objects, and the column holding the object's oid. */
const CATALOGS: ReadonlyArray<readonly [string, string]> = [
  ['pg_proc', 'oid'],
  ['pg_type', 'oid'],
  ['pg_trigger', 'oid'],
  ['pg_constraint', 'oid'],
  ['pg_attrdef', 'oid'],
  ['pg_namespace', 'oid'],
  ['pg_attribute', 'attrelid'],
  ['pg_index', 'indrelid'],
  ['pg_rewrite', 'oid'],
  ['pg_policy', 'oid'],
  ['pg_sequence', 'seqrelid'],
];

/**
 * The columns of pg_class that DDL changes and a TRUNCATE does not (a truncation gives the
 * table a new file, `relfilenode`, and new statistics; the restore must not look like DDL).
 */
const CLASS_COLUMNS = [
  'oid',
  'relname',
  'relnamespace',
  'reltype',
  'relam',
  'relkind',
  'relnatts',
  'relchecks',
  'relhasindex',
  'relhasrules',
  'relhastriggers',
  'relhassubclass',
  'relrowsecurity',
  'relpersistence',
  'relreplident',
  'relispartition',
  'reloptions',
  'relpartbound',
];

// Objects made after initdb have oids from FirstNormalObjectId on.
const FIRST_USER_OID = 16_384;

/**
 * A function returning the catalog's fingerprint: the count and newest row version (`xmin`) of
 * each catalog's user rows — a CREATE or ALTER writes a row version, a DROP removes rows — and
 * pg_class's definitions. Its plans are cached in the session, which keeps the check cheap.
 */
export const FINGERPRINT_FUNCTION_DDL = `
CREATE FUNCTION ${SNAPSHOT_SCHEMA}.fingerprint() RETURNS text LANGUAGE plpgsql AS $fp$
BEGIN
  RETURN ${CATALOGS.map(
    ([catalog, key]) =>
      `(SELECT count(*) || ':' || coalesce(max(xmin::text::bigint), 0) ` +
      `FROM pg_catalog.${catalog} WHERE ${key} >= ${String(FIRST_USER_OID)})`,
  ).join(" || ',' ||\n    ")}
    || ',' || (SELECT md5(string_agg(row(${CLASS_COLUMNS.join(', ')})::text, ';' ORDER BY oid))
               FROM pg_catalog.pg_class WHERE oid >= ${String(FIRST_USER_OID)});
END
$fp$`;

/** The user's tables and sequences, as the catalog lists them after a setup. */
export const LIST_RELATIONS = `
SELECT c.oid::bigint AS oid, format('%I.%I', n.nspname, c.relname) AS name, c.relkind::text AS kind,
       (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum)
          FROM pg_catalog.pg_attribute a
         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
           AND a.attgenerated = '') AS columns
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p', 'S', 'm', 'f', 'v')
   AND c.relpersistence <> 't'
   AND n.nspname NOT IN ('information_schema', '${SNAPSHOT_SCHEMA}')
   AND n.nspname NOT LIKE 'pg\\_%'
 ORDER BY c.oid`;

/** One row of `LIST_RELATIONS`. */
export interface Relation extends Record<string, unknown> {
  oid: string | number;
  name: string;
  kind: string;
  columns: string | null;
}

/**
 * The statements that copy the setup's state into the snapshot schema, and the statement that
 * restores it, or undefined when the schema holds what a restore cannot bring back as it was (a
 * materialized view's contents, a view, a foreign table: none of leaseproof's queues has one;
 * such a queue's setup simply runs before every run). `sequences` is each sequence's
 * `last_value` and `is_called` after the setup.
 */
export function snapshotPlan(
  relations: readonly Relation[],
  rowsOf: ReadonlyMap<string, number>,
  sequences: ReadonlyMap<string, { lastValue: string; isCalled: boolean }>,
): { copy: string; restore: string } | undefined {
  if (relations.some((r) => r.kind !== 'r' && r.kind !== 'p' && r.kind !== 'S')) return undefined;
  const tables = relations.filter((r) => r.kind === 'r');
  const copy: string[] = [];
  const restore: string[] = [
    // The restored rows are the setup's, not writes of the run: no trigger (the audit's) fires.
    'SET session_replication_role = replica',
  ];
  if (tables.length > 0) restore.push(`TRUNCATE ${tables.map((t) => t.name).join(', ')}`);
  for (const table of tables) {
    if ((rowsOf.get(table.name) ?? 0) === 0 || table.columns === null) continue;
    const kept = `${SNAPSHOT_SCHEMA}.t${String(table.oid)}`;
    copy.push(`CREATE TABLE ${kept} AS SELECT ${table.columns} FROM ONLY ${table.name}`);
    restore.push(
      `INSERT INTO ${table.name} (${table.columns}) OVERRIDING SYSTEM VALUE ` +
        `SELECT ${table.columns} FROM ${kept}`,
    );
  }
  for (const [name, { lastValue, isCalled }] of sequences) {
    restore.push(
      `SELECT pg_catalog.setval(${quoteLiteral(name)}, ${lastValue}, ${String(isCalled)})`,
    );
  }
  restore.push('SET session_replication_role = origin');
  return { copy: copy.join(';\n'), restore: restore.join(';\n') };
}

function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

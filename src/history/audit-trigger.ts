/**
 * The ground truth of a run: a trigger on the queue's lease table, generated from the adapter's
 * audit description, that writes every row change into `leaseproof_audit` with the database's
 * clock, the transaction id and the writing connection's `application_name` (the worker id).
 *
 * The description's expressions are SQL over the row as `r`. They are pasted into a plpgsql
 * function in which `r` is a variable of the table's row type, assigned OLD and then NEW: the
 * expressions are then plpgsql expressions with cached plans, which keeps the trigger cheap
 * (an `EXECUTE … USING` per expression would parse and plan on every row). Pasting SQL is safe
 * here because the adapter is trusted code that already runs arbitrary SQL in the workers; what
 * needs care is a clear error when an expression is wrong, so each is first prepared over the
 * table (which also refuses anything that is not one expression) and evaluated as the trigger
 * will evaluate it. An expression that fails only on some row's data would still fail the queue's
 * statement on that row: the trigger catches nothing, since an exception block per row would
 * cost a subtransaction per change.
 *
 * Every UPDATE is recorded, also one that leaves holder, deadline and state as they were (a
 * cursor checkpoint): it is still a committed write by a claim's holder — unless the description
 * calls it bookkeeping (`AuditDescription.bookkeeping`). A consumer looking for
 * grants and extensions compares the old and new images.
 */
import { createHash } from 'node:crypto';
import type { AuditDescription, SqlClient } from '../queue/types.js';
import { AUDIT_DDL, AUDIT_TABLE } from './audit-table.js';
import { AuditDescriptionError } from './history-errors.js';

/** The trigger's name on the audited table. */
export const AUDIT_TRIGGER = 'leaseproof_audit';

type ExpressionName = keyof AuditDescription['expressions'];

/** The SQL type each expression is cast to (the audit table's column types). */
const EXPRESSION_TYPES: Record<ExpressionName, string> = {
  jobId: 'text',
  holder: 'text',
  deadline: 'timestamptz',
  state: 'text',
};

/**
 * Creates `leaseproof_audit` and the audit trigger on `audit.table` (replacing an earlier one, so
 * installing twice is harmless). Install it before the jobs are enqueued, so their inserts are on
 * record too. Throws an `AuditDescriptionError` naming the table and the expression when the
 * description does not evaluate against the table.
 */
export async function installAuditTrigger(
  client: SqlClient,
  audit: AuditDescription,
): Promise<void> {
  const table = await qualifiedTableName(client, audit.table);
  for (const name of Object.keys(EXPRESSION_TYPES) as ExpressionName[]) {
    await checkExpression(client, audit, table, name);
  }
  for (const [name, condition] of [
    ['bookkeeping', audit.bookkeeping],
    ['sweep', audit.sweep],
  ] as const) {
    if (condition === undefined) continue;
    try {
      await client.query(
        `SELECT (\n${condition}\n)::boolean AS v FROM ${table} o, ${table} r
          WHERE $1::boolean LIMIT 0`,
        [false],
      );
    } catch (error) {
      throw new AuditDescriptionError(
        `audit description of table ${audit.table}: the ${name} condition ` +
          `\`${condition}\` does not evaluate over the rows o and r: ${messageOf(error)}`,
        { cause: error },
      );
    }
  }
  if (audit.jobRows !== undefined) {
    try {
      await client.query(
        `SELECT (\n${audit.jobRows}\n)::boolean AS v FROM ${table} r WHERE $1::boolean LIMIT 0`,
        [false],
      );
    } catch (error) {
      throw new AuditDescriptionError(
        `audit description of table ${audit.table}: the jobRows condition ` +
          `\`${audit.jobRows}\` does not evaluate over the row r: ${messageOf(error)}`,
        { cause: error },
      );
    }
  }
  const { rows } = await client.query<{ schema: string }>(
    'SELECT quote_ident(current_schema()) AS schema',
  );
  const auditTable = `${rows[0]?.schema ?? 'public'}.${AUDIT_TABLE}`;
  const fn = `${rows[0]?.schema ?? 'public'}.leaseproof_audit_${shortHash(table)}`;
  // One simple-protocol query: the statements run as one implicit transaction, so a failure
  // leaves no half-installed trigger behind.
  await client.query(
    [
      AUDIT_DDL,
      triggerFunctionSql(fn, table, auditTable, audit),
      `DROP TRIGGER IF EXISTS ${AUDIT_TRIGGER} ON ${table}`,
      `CREATE TRIGGER ${AUDIT_TRIGGER} AFTER INSERT OR UPDATE OR DELETE ON ${table}
         FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    ].join(';\n'),
  );
  if (audit.liveness !== undefined) {
    await installLivenessTrigger(client, audit, table, auditTable, `${fn}_liveness`);
  }
}

/**
 * The second trigger of a queue whose lease is kept alive in another table
 * (`AuditDescription.liveness`): on every update of a liveness row that moves its deadline, one
 * audit row per job it holds — an `update` of that job, same holder and state, from the old
 * deadline to the new one, written by the connection that wrote the heartbeat. To the history
 * it is the extension it is.
 */
async function installLivenessTrigger(
  client: SqlClient,
  audit: AuditDescription,
  table: string,
  auditTable: string,
  fn: string,
): Promise<void> {
  const liveness = audit.liveness!;
  const livenessTable = await qualifiedTableName(client, liveness.table);
  const problem = (what: string, expression: string, error: unknown) =>
    new AuditDescriptionError(
      `audit description: the liveness ${what} \`${expression}\` does not evaluate over ` +
        `${audit.table} r and ${liveness.table} l: ${messageOf(error)}`,
      { cause: error },
    );
  try {
    await client.query(
      `SELECT (\n${liveness.holds}\n)::boolean AS v FROM ${table} r, ${livenessTable} l
        WHERE $1::boolean LIMIT 0`,
      [false],
    );
  } catch (error) {
    throw problem('condition', liveness.holds, error);
  }
  try {
    await client.query(
      `SELECT (\n${liveness.deadline}\n)::timestamptz AS v FROM ${livenessTable} l
        WHERE $1::boolean LIMIT 0`,
      [false],
    );
  } catch (error) {
    throw problem('deadline', liveness.deadline, error);
  }
  const { expressions } = audit;
  const text = `
#variable_conflict use_column
DECLARE
  r ${table}%ROWTYPE;
  l ${livenessTable}%ROWTYPE;
  lp_job text; lp_holder text; lp_state text;
  lp_old_deadline timestamptz; lp_new_deadline timestamptz;
BEGIN
  l := OLD;
  lp_old_deadline := (\n${liveness.deadline}\n)::timestamptz;
  l := NEW;
  lp_new_deadline := (\n${liveness.deadline}\n)::timestamptz;
  IF lp_old_deadline IS NOT DISTINCT FROM lp_new_deadline THEN
    RETURN NULL;
  END IF;
  FOR r IN SELECT * FROM ${table} r WHERE (\n${liveness.holds}\n)${ofJobRows(audit, 'AND')} LOOP
    lp_job := (\n${expressions.jobId}\n)::text;
    lp_holder := (\n${expressions.holder}\n)::text;
    lp_state := (\n${expressions.state}\n)::text;
    INSERT INTO ${auditTable}
      (op, job_id, old_holder, old_deadline, old_state, new_holder, new_deadline, new_state, via)
    VALUES ('update', lp_job, lp_holder, lp_old_deadline, lp_state,
            lp_holder, lp_new_deadline, lp_state, 'liveness');
  END LOOP;
  RETURN NULL;
END`;
  const tag = dollarTag(text);
  await client.query(
    [
      `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS ${tag}${text}\n${tag}`,
      `DROP TRIGGER IF EXISTS ${AUDIT_TRIGGER} ON ${livenessTable}`,
      `CREATE TRIGGER ${AUDIT_TRIGGER} AFTER UPDATE ON ${livenessTable}
         FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    ].join(';\n'),
  );
}

/** The table as `schema.name`, quoted: workers' sessions resolve it whatever their search_path. */
async function qualifiedTableName(client: SqlClient, table: string): Promise<string> {
  let rows: { name: string | null }[];
  try {
    ({ rows } = await client.query<{ name: string | null }>(
      `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.oid = to_regclass($1)`,
      [table],
    ));
  } catch (error) {
    throw new AuditDescriptionError(
      `audit description: table name "${table}" is not a valid table name: ${messageOf(error)}`,
      { cause: error },
    );
  }
  const name = rows[0]?.name;
  if (name == null) {
    throw new AuditDescriptionError(
      `audit description: table "${table}" does not exist; the adapter's setup() must create it ` +
        'before the audit trigger is installed',
    );
  }
  return name;
}

/**
 * Checks one expression twice. First `SELECT (<expr>)::<type> FROM <table> r` is prepared and
 * not run: the server resolves columns and types, and a prepared statement cannot hold a second
 * command, so the expression is one expression. Then it is evaluated the way the trigger will,
 * in plpgsql over a variable of the row type (all NULLs): what prepares in a SELECT list but
 * fails as an assignment (a set-returning expression) would otherwise fail inside the trigger —
 * that is, fail the queue's own statements.
 */
async function checkExpression(
  client: SqlClient,
  audit: AuditDescription,
  table: string,
  name: ExpressionName,
): Promise<void> {
  const expression = audit.expressions[name];
  const problem = (why: string, cause?: unknown) =>
    new AuditDescriptionError(
      `audit description of table ${audit.table}: the ${name} expression \`${expression}\` ${why}`,
      cause === undefined ? undefined : { cause },
    );
  if (typeof expression !== 'string' || expression.trim() === '') throw problem('is empty');
  const type = EXPRESSION_TYPES[name];
  try {
    // The parameter forces the extended protocol, where "a; b" is an error rather than two
    // statements.
    await client.query(
      `SELECT (\n${expression}\n)::${type} AS v FROM ${table} r WHERE $1::boolean LIMIT 0`,
      [false],
    );
    const block = `DECLARE r ${table}%ROWTYPE; v ${type}; BEGIN v := (\n${expression}\n)::${type}; END`;
    const tag = dollarTag(block);
    await client.query(`DO ${tag}${block}${tag}`);
  } catch (error) {
    throw problem(`does not evaluate over the row r: ${messageOf(error)}`, error);
  }
}

/** The plpgsql trigger function, with the description's expressions pasted in. */
function triggerFunctionSql(
  fn: string,
  table: string,
  auditTable: string,
  audit: AuditDescription,
): string {
  const { expressions } = audit;
  // Bookkeeping is not recorded; the library's own sweep, run in a worker's process, is
  // recorded under a name of its own.
  const bookkeeping = onUpdateWhere(audit.bookkeeping, 'RETURN NULL;');
  const sweep = onUpdateWhere(audit.sweep, "lp_app := lp_app || ':sweep';");
  // The library's own work in the table (a periodic task's jobs) is not a job of the run's.
  const notJob =
    audit.jobRows === undefined
      ? ''
      : `  IF TG_OP <> 'INSERT' THEN
    r := OLD;
    lp_job_row := COALESCE((\n${audit.jobRows}\n)::boolean, false);
  END IF;
  IF TG_OP <> 'DELETE' AND NOT lp_job_row THEN
    r := NEW;
    lp_job_row := COALESCE((\n${audit.jobRows}\n)::boolean, false);
  END IF;
  IF NOT lp_job_row THEN
    RETURN NULL;
  END IF;
`;
  const body = (image: 'old' | 'new', row: 'OLD' | 'NEW') =>
    [
      `r := ${row};`,
      `lp_job := (\n${expressions.jobId}\n)::text;`,
      `lp_${image}_holder := (\n${expressions.holder}\n)::text;`,
      `lp_${image}_deadline := (\n${expressions.deadline}\n)::timestamptz;`,
      `lp_${image}_state := (\n${expressions.state}\n)::text;`,
    ].join('\n');
  const text = `
#variable_conflict use_column
DECLARE
  r ${table}%ROWTYPE;
  o ${table}%ROWTYPE;
  lp_job text;
  lp_old_holder text; lp_old_deadline timestamptz; lp_old_state text;
  lp_new_holder text; lp_new_deadline timestamptz; lp_new_state text;
  lp_app text := current_setting('application_name');
  lp_job_row boolean := false;
BEGIN
${notJob}  IF TG_OP <> 'INSERT' THEN
${body('old', 'OLD')}
  END IF;
  IF TG_OP <> 'DELETE' THEN
${body('new', 'NEW')}
  END IF;
${bookkeeping}${sweep}  INSERT INTO ${auditTable}
    (op, app, job_id, old_holder, old_deadline, old_state, new_holder, new_deadline, new_state)
  VALUES (lower(TG_OP), lp_app, lp_job, lp_old_holder, lp_old_deadline, lp_old_state,
          lp_new_holder, lp_new_deadline, lp_new_state);
  RETURN NULL;
END`;
  const tag = dollarTag(text);
  return `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS ${tag}${text}\n${tag}`;
}

/** ` <joiner> (jobRows)` over `r`, or nothing when every row of the table is a job. */
function ofJobRows(audit: AuditDescription, joiner: string): string {
  return audit.jobRows === undefined ? '' : ` ${joiner} (\n${audit.jobRows}\n)`;
}

/** plpgsql that runs `then` for an UPDATE whose rows `o` and `r` meet `condition`, if any. */
function onUpdateWhere(condition: string | undefined, then: string): string {
  if (condition === undefined) return '';
  return `  IF TG_OP = 'UPDATE' THEN
    o := OLD;
    r := NEW;
    IF (\n${condition}\n) THEN
      ${then}
    END IF;
  END IF;
`;
}

/** A dollar-quote tag that does not occur in the body. */
function dollarTag(body: string): string {
  for (let n = 0; ; n += 1) {
    const tag = `$leaseproof${n === 0 ? '' : n}$`;
    if (!body.includes(tag)) return tag;
  }
}

/** One function per audited table, so two audited tables in one database do not collide. */
function shortHash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 10);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

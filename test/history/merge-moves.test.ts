import { describe, expect, it } from 'vitest';
import { mergeMoves } from '../../src/history/audit-reader.js';
import type { AuditEvent, LeaseImage } from '../../src/history/types.js';

const held: LeaseImage = { holder: 'j1#0', deadline: 1_000, state: 'held' };
const retry: LeaseImage = { holder: null, deadline: null, state: 'pending' };

function audit(op: AuditEvent['op'], xid: string, job: string, t: number): AuditEvent {
  return {
    type: 'audit',
    t,
    stmtT: t,
    txnT: t,
    xid,
    app: 'w1',
    op,
    job,
    old: op === 'insert' ? null : held,
    new: op === 'delete' ? null : retry,
  };
}

describe('mergeMoves (a library that fails a job by deleting and re-inserting its row)', () => {
  it('reads a delete and an insert of one job in one transaction as one update', () => {
    const merged = mergeMoves([audit('delete', '7', 'j1', 10), audit('insert', '7', 'j1', 10.2)]);
    expect(merged).toEqual([{ ...audit('delete', '7', 'j1', 10), op: 'update', new: retry }]);
  });

  it('pairs by job within a statement that moves several rows (deletes first, then inserts)', () => {
    const merged = mergeMoves([
      audit('delete', '7', 'j1', 10),
      audit('delete', '7', 'j2', 10.1),
      audit('insert', '7', 'j2', 10.2),
      audit('insert', '7', 'j1', 10.3),
    ]);
    expect(merged.map((e) => `${e.op} ${e.job}`)).toEqual(['update j1', 'update j2']);
  });

  it('pairs an insert whose trigger row came before the delete (CTE parts run in no order)', () => {
    const merged = mergeMoves([audit('insert', '7', 'j1', 10), audit('delete', '7', 'j1', 10.1)]);
    expect(merged).toEqual([{ ...audit('insert', '7', 'j1', 10), op: 'update', old: held }]);
  });

  it('keeps a delete alone, and an insert of another transaction, as they are', () => {
    const events = [audit('delete', '7', 'j1', 10), audit('insert', '8', 'j1', 11)];
    expect(mergeMoves(events)).toEqual(events);
    const completions = [audit('delete', '9', 'j3', 12)];
    expect(mergeMoves(completions)).toEqual(completions);
  });
});

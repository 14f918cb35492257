import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/report/junit-xml.js';
import { scenarioNames } from '../../src/report/scenario-labels.js';
import type { RunReport } from '../../src/report/types.js';
import { buildVerdict } from '../../src/report/verdict-json.js';
import { cleanRun, expiryWithoutFault } from '../checker/fixtures/anomalies.js';
import { ODD, mixedRun, oddStaleAck, renamed, scenario } from './fixtures.js';

interface TestCase {
  classname: string;
  name: string;
  failure?: { message: string; type: string; '#text': string };
  error?: { message: string; type: string; '#text': string };
  'system-out'?: string;
  skipped?: { message: string };
}
interface Suite {
  name: string;
  tests: string;
  failures: string;
  errors: string;
  skipped: string;
  testcase: TestCase[];
}
interface Parsed {
  testsuites: { tests: string; failures: string; errors: string; testsuite: Suite[] };
}

function junitOf(run: RunReport): string {
  return renderJunit(buildVerdict(run, scenarioNames(run.scenarios)));
}

function parse(xml: string): Parsed {
  expect(XMLValidator.validate(xml)).toBe(true);
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
    isArray: (name) => name === 'testsuite' || name === 'testcase',
  }).parse(xml) as Parsed;
}

describe('junit.xml', () => {
  it('is valid XML with one test case per scenario × invariant', () => {
    const { testsuites } = parse(junitOf(mixedRun()));
    expect(testsuites).toMatchObject({ tests: '36', failures: '2', errors: '1' });
    expect(testsuites.testsuite.map((s) => s.name)).toEqual([
      'pause-past-lease [unconditional-ack]',
      'clean [reference]',
      'lease-too-short [reference]',
      'cut-short [reference]',
    ]);
    // A name run against two queues is labelled with its queue, which the suite names once.
    const run = mixedRun();
    const twice = {
      ...run,
      scenarios: [...run.scenarios, scenario(renamed(cleanRun(), 'clean', 'unconditional-ack'))],
    };
    expect(parse(junitOf(twice)).testsuites.testsuite.map((s) => s.name)).toEqual(
      expect.arrayContaining(['clean [reference]', 'clean [unconditional-ack]']),
    );
    for (const suite of testsuites.testsuite) {
      expect(suite.testcase).toHaveLength(9);
      expect(suite.tests).toBe('9');
    }
    const cases = testsuites.testsuite[0]!.testcase;
    expect(cases.map((c) => c.classname)).toEqual(Array(9).fill('pause-past-lease'));
    expect(cases.map((c) => c.name)).toEqual([
      'no-stale-ack',
      'single-completion',
      'no-lost-job',
      'exclusive-claim',
      'at-least-once-bound',
      'lease-honored',
      'bounded-zombie',
      'timely-recovery',
      'explained-expiry',
    ]);
  });

  it('makes an invalid verdict a failure carrying the evidence in words', () => {
    const { testsuites } = parse(junitOf(mixedRun()));
    const [staleAck, single, ...rest] = testsuites.testsuite[0]!.testcase;
    expect(staleAck!.failure).toMatchObject({ type: 'I1 no-stale-ack' });
    expect(staleAck!.failure!.message).toMatch(/^ack by w1 \(claim 1\) committed at \+405ms/);
    const text = staleAck!.failure!['#text'];
    expect(text).toMatch(/^I1 no-stale-ack: invalid \(acks=2 stale=1/);
    expect(text).toMatch(/violation 1:\n {2}job 1: ack by w1/);
    expect(text).toMatch(/\+405\.05ms \(db 1970-01-01T00:16:40\.405050Z\) ack committed by w1/);
    expect(text).toMatch(/fault pause on w1 \(f1\) from \+20ms to \+400ms/);
    expect(single!.failure!.type).toBe('I2 single-completion');
    for (const c of rest) expect(c.failure ?? c.error).toBeUndefined();
  });

  it('makes an unknown verdict an error saying why, and shows warnings as output', () => {
    const { testsuites } = parse(junitOf(mixedRun()));
    const lost = testsuites.testsuite[3]!.testcase.find((c) => c.name === 'no-lost-job')!;
    expect(lost.error).toMatchObject({ type: 'unknown' });
    expect(lost.error!.message).toMatch(/the history was cut/);
    const expiry = testsuites.testsuite[2]!.testcase.find((c) => c.name === 'explained-expiry')!;
    expect(expiry.failure).toBeUndefined();
    expect(expiry['system-out']).toMatch(/^warning: /);
  });

  it('makes an n/a verdict a skipped test case saying why the queue does not promise it', () => {
    const history = renamed(expiryWithoutFault(), 'lease-too-short', 'pg-boss');
    history.header.queueTerms = {
      requestedLease: history.header.lease,
      notes: [],
      rescaled: [],
      extendsLease: false,
    };
    const { testsuites } = parse(junitOf({ ...mixedRun(), scenarios: [scenario(history)] }));
    const suite = testsuites.testsuite[0]!;
    const expiry = suite.testcase.find((c) => c.name === 'explained-expiry')!;
    expect(expiry.skipped!.message).toMatch(/^n\/a: queue "pg-boss" has no lease extension/);
    expect(expiry.failure ?? expiry.error).toBeUndefined();
    expect(suite.skipped).toBe('1');
  });

  it('escapes odd strings in names, messages and evidence, and drops characters XML cannot carry', () => {
    const xml = junitOf({ ...mixedRun(), scenarios: [scenario(oddStaleAck())] });
    expect(xml).not.toContain('\u0001');
    const { testsuites } = parse(xml);
    const printable = ODD.replace('\u0001', '\uFFFD');
    const suite = testsuites.testsuite[0]!;
    expect(suite.name).toBe(`odd ${printable} [unconditional-ack]`);
    const staleAck = suite.testcase[0]!;
    expect(staleAck.classname).toBe(`odd ${printable}`);
    expect(staleAck.failure!['#text']).toContain(`job job${printable}: ack by w1`);
  });
});

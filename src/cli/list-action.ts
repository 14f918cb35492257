/** What `leaseproof list` does, loaded only when it runs (list-command.ts defines the verb). */
import { basename } from 'node:path';
import { ALL_CHECKERS } from '../checker/index.js';
import { describeError } from '../errors.js';
import { FAULT_KIND_TABLE, FAULT_KINDS } from '../faults/fault-kinds.js';
import { builtInQueues } from '../libraries/registry.js';
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import { settleSettings, settingsLines } from '../queue/library-settings.js';
import { loadScenarioOrIncident } from '../replay/load-incident.js';
import { scenarioFolder, shownPath, yamlFiles, type ScenarioFolder } from './scenario-folder.js';

/** One thing `list` describes: its name and what it is, in a line. */
type Item = readonly [name: string, description: string];

/** Prints the built-in queues, the scenarios of `dir`, the faults and the checkers. */
export async function list(dir: string | undefined): Promise<void> {
  const folder = await scenarioFolder(dir);
  const files = await yamlFiles(folder.dir);
  const sections: [string, Item[]][] = [
    [
      `queues (${Object.keys(builtInQueues).length} built in; or your own adapter file, ` +
        '--queue ./my-queue.ts)',
      Object.values(builtInQueues).map((q) => [q.name, oneLine(q.description)]),
    ],
    [scenariosHeading(folder, files.length), await Promise.all(files.map(scenarioItem))],
    [
      `faults (${FAULT_KINDS.length})`,
      FAULT_KINDS.map((k) => [k, FAULT_KIND_TABLE[k].description]),
    ],
    [
      `checkers (${ALL_CHECKERS.length})`,
      ALL_CHECKERS.map((c) => [c.name, `${c.id}: ${oneLine(c.description)}`]),
    ],
  ];
  const width = Math.max(...sections.flatMap(([, items]) => items.map(([name]) => name.length)));
  for (const [heading, items] of sections) {
    console.log(`${heading}:`);
    if (items.length === 0) console.log('  (none)');
    for (const [name, description] of items) console.log(`  ${name.padEnd(width)}  ${description}`);
  }
}

/** A 1 s lease: the curated scenarios' scale, to show what one time factor makes of a library. */
const SHOWN_LEASE = { durationMs: 1_000, heartbeatMs: 250, extendByMs: 1_000, pollMs: 50 };

/**
 * `leaseproof list --queue <name>`: one queue, and a library's own settings — each by its own
 * name, its default, where the library defines it — with their values at a 1 s lease.
 */
export async function listQueue(name: string): Promise<void> {
  const adapter = await loadQueueAdapter(name);
  console.log(`${adapter.name}: ${oneLine(adapter.description)}`);
  const spec = adapter.settings;
  if (spec === undefined) {
    console.log(
      "settings: none of its own (it takes the scenario's lease as it is: duration, heartbeat, " +
        'extendBy, poll)',
    );
    return;
  }
  console.log(
    `settings (scenario key "${spec.library}", or --setting Name=value; in the library's units):`,
  );
  const width = Math.max(...spec.settings.map((s) => s.name.length));
  const settled = settleSettings(spec, SHOWN_LEASE);
  for (const s of settled.settings) {
    const origin = s.constant === true ? 'hard-coded' : 'default';
    console.log(`  ${s.name.padEnd(width)}  ${s.library} (${origin}, ${s.where})`);
  }
  console.log('at a 1 s scenario lease:');
  for (const line of settingsLines(settled)) console.log(`  ${line}`);
}

/** Says where the scenarios come from, and how to list one's own when they are the shipped ones. */
function scenariosHeading(folder: ScenarioFolder, count: number): string {
  return folder.source === 'shipped'
    ? `scenarios (${count}, shipped with leaseproof at ${shownPath(folder.dir)}; ` +
        'add ./scenarios or `leaseproof list DIR` for your own)'
    : `scenarios (${count} in ${folder.source === 'project' ? './scenarios' : folder.dir})`;
}

/** A scenario file by the name `run` takes (its file name), and its description's first sentence. */
async function scenarioItem(file: string): Promise<Item> {
  const name = basename(file).replace(/\.ya?ml$/, '');
  try {
    const { scenario } = await loadScenarioOrIncident(file);
    return [name, firstSentence(scenario.description) || '(the file has no description)'];
  } catch (error) {
    return [name, `(cannot be run: ${describeError(error).split('\n')[0] ?? ''})`];
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The first sentence: scenario descriptions run to a paragraph, a list has room for a line. */
function firstSentence(text: string): string {
  const line = oneLine(text);
  return /^.+?[.!?](?=\s+[A-Z(]|$)/.exec(line)?.[0] ?? line;
}

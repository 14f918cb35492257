/**
 * Which cells a simulation-guided mutation matrix runs for real, round after round. Pure: the
 * simulation's verdicts in, the next round's picks out.
 *
 * A variant's candidates, in order: the scenarios where the simulation killed it with its named
 * invariant (while the base stayed valid there in simulation: a scenario where the simulation
 * raised a false alarm on the base leads nowhere); then those where it found the variant invalid
 * by another invariant only; then the scenarios the simulation refused or ran only approximately
 * (a stall, a blocked loop, a restart: where the kills it cannot see must be); then those it did
 * not run the variant on (it had found its kills); last those where it ran it and found it
 * valid. Each round runs, for every variant not yet killed on `minKills` real runs, as many of
 * its simulated kills as it still needs — they mostly hold — or, once those are spent, blind
 * candidates: what it needs and two more, and at least as many as run side by side. The blind
 * candidates where a variant caught by the same invariant was killed for real come first: a bug
 * the simulation cannot see (a race between transactions) shows where its kind of bug did.
 */

/** What the simulation said of one variant, scenario by scenario (by scenario file). */
export interface VariantLeads {
  /** The variant's queue name. */
  queue: string;
  /**
   * Scenarios it was killed on in simulation by its named invariant, those that share the
   * machine first (then in file order): the cheapest real runs to prove a kill on.
   */
  simKills: string[];
  /**
   * Scenarios where the simulation found it invalid by another invariant only, in file order:
   * the scenario disturbed it, and a real run's timing may take it further.
   */
  simOthers: string[];
  /** Scenarios the simulation refused or ran approximately, in file order. */
  unmodelled: string[];
  /** Scenarios the simulation did not run it on (it had found its kills), in file order. */
  unsimulated: string[];
  /** Every other scenario (the simulation ran it and found the variant valid), in file order. */
  others: string[];
}

/** Where a variant stands after the real rounds so far. */
export interface VariantProgress {
  /** Scenarios already run for real against it. */
  tried: ReadonlySet<string>;
  /** Real runs that killed it with its named invariant. */
  realKills: number;
}

// Past the simulated kills the search is blind: a round runs this many spares beside what is needed.
const BLIND_SPARES = 2;

/**
 * The scenarios to run for real against `leads.queue` next; none when it needs no more. Past the
 * simulated kills, a round runs at least `width` of them (the runs side by side): a round of
 * fewer leaves lanes idle, and every round costs an environment's start. `kin` are the scenarios
 * where variants caught by the same invariant were killed for real so far, first kill first.
 */
export function nextPicks(
  leads: VariantLeads,
  progress: VariantProgress,
  minKills: number,
  width = 1,
  kin: readonly string[] = [],
): string[] {
  const need = minKills - progress.realKills;
  if (need <= 0) return [];
  const untried = (files: string[]): string[] => files.filter((f) => !progress.tried.has(f));
  const led = untried(leads.simKills);
  if (led.length >= need) return led.slice(0, need);
  const rest = [...leads.simOthers, ...leads.unmodelled, ...leads.unsimulated, ...leads.others];
  const blind = untried([...new Set([...kin.filter((f) => rest.includes(f)), ...rest])]);
  const take = Math.max(need - led.length + BLIND_SPARES, width - led.length);
  return [...led, ...blind.slice(0, take)];
}

// The simulation-guided matrix's choice of real runs: simulated kills first and no more than
// needed; past them, the scenarios the simulation does not model, then the rest, with spares.
import { describe, expect, it } from 'vitest';
import { nextPicks, type VariantLeads } from '../../src/mutants/guided-plan.js';

const leads: VariantLeads = {
  queue: 'v',
  simKills: ['k1', 'k2', 'k3'],
  simOthers: [],
  unmodelled: ['u1', 'u2'],
  unsimulated: [],
  others: ['o1', 'o2', 'o3'],
};

describe('nextPicks', () => {
  it('runs only as many simulated kills as the variant still needs', () => {
    expect(nextPicks(leads, { tried: new Set(), realKills: 0 }, 2)).toEqual(['k1', 'k2']);
    expect(nextPicks(leads, { tried: new Set(['k1', 'k2']), realKills: 1 }, 2)).toEqual(['k3']);
    expect(nextPicks(leads, { tried: new Set(['k1']), realKills: 2 }, 2)).toEqual([]);
  });

  it('past the simulated kills, runs what the simulation does not model first, with spares', () => {
    const tried = new Set(['k1', 'k2', 'k3']);
    expect(nextPicks(leads, { tried, realKills: 1 }, 2)).toEqual(['u1', 'u2', 'o1']);
    const none: VariantLeads = { ...leads, simKills: [] };
    expect(nextPicks(none, { tried: new Set(), realKills: 0 }, 2)).toEqual([
      'u1',
      'u2',
      'o1',
      'o2',
    ]);
    // A simulated kill left is run beside the blind picks.
    expect(nextPicks(leads, { tried: new Set(['k1', 'k2']), realKills: 0 }, 2)).toEqual([
      'k3',
      'u1',
      'u2',
      'o1',
    ]);
  });

  it('runs a scenario the simulation found invalid by another invariant before the blind ones', () => {
    const disturbed: VariantLeads = { ...leads, simKills: [], simOthers: ['x1'] };
    expect(nextPicks(disturbed, { tried: new Set(), realKills: 0 }, 1)).toEqual(['x1', 'u1', 'u2']);
  });

  it('runs a scenario the simulation did not run the variant on before one it found valid', () => {
    const stopped: VariantLeads = { ...leads, simKills: [], unmodelled: [], unsimulated: ['n1'] };
    expect(nextPicks(stopped, { tried: new Set(), realKills: 0 }, 1)).toEqual(['n1', 'o1', 'o2']);
  });

  it('fills the lanes of a blind round, but never pads the simulated kills', () => {
    const none: VariantLeads = { ...leads, simKills: [] };
    expect(nextPicks(none, { tried: new Set(), realKills: 1 }, 2, 4)).toEqual([
      'u1',
      'u2',
      'o1',
      'o2',
    ]);
    expect(nextPicks(leads, { tried: new Set(), realKills: 0 }, 2, 4)).toEqual(['k1', 'k2']);
  });

  it('past the leads, searches first where a variant caught by the same invariant was killed for real', () => {
    const none: VariantLeads = { ...leads, simKills: [] };
    expect(nextPicks(none, { tried: new Set(), realKills: 0 }, 1, 1, ['o3', 'k9', 'o3'])).toEqual([
      'o3',
      'u1',
      'u2',
    ]);
    // Tried already: not again.
    expect(nextPicks(none, { tried: new Set(['o3']), realKills: 0 }, 1, 1, ['o3'])).toEqual([
      'u1',
      'u2',
      'o1',
    ]);
    // Simulated kills still come first.
    expect(nextPicks(leads, { tried: new Set(), realKills: 0 }, 2, 1, ['o3'])).toEqual([
      'k1',
      'k2',
    ]);
  });

  it('stops when every scenario has run', () => {
    const all = new Set([...leads.simKills, ...leads.unmodelled, ...leads.others]);
    expect(leads.simOthers.length + leads.unsimulated.length).toBe(0);
    expect(nextPicks(leads, { tried: all, realKills: 0 }, 2)).toEqual([]);
  });
});

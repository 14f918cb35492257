/**
 * The candidate closest to `word`, if it is close enough to be a likely typo
 * (`pauze` → `pause`, `no-stale-acks` → `no-stale-ack`), for a "did you mean" hint.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // A third of the word may be wrong: enough for typos, too little for unrelated words.
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

/** Levenshtein distance, with one row of memory. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next.push(Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + cost));
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/** Unit words a key may end with instead of the option's own `Ms` / `Bytes`. */
const TIME_UNITS = ['milliseconds', 'millis', 'msec', 'ms', 'seconds', 'secs', 'sec', 'minutes', 'mins', 'min'];
const SIZE_UNITS = ['bytes', 'byte', 'size', 'kb', 'mb'];

/**
 * The known key a mistyped one most likely meant, or `undefined` when none is close. In this order:
 * 1. the same key in another case or spelling of separators (`baseURL`, `base_url` → `baseUrl`);
 * 2. the key with the option's unit added or changed (`ttl`, `ttlSeconds` → `ttlMs`; `maxUpload`, `maxUploadSize`
 *    → `maxUploadBytes`);
 * 3. the fewest edits (insertions, deletions, substitutions, swaps of neighbours; case ignored), as TypeScript's
 *    "did you mean" picks: within `floor(0.4 × length)` edits, and a length within `max(2, 0.34 × length)`; of
 *    equally close keys, the first known.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const plain = normal(key);
  const same = known.find((k) => normal(k) === plain);
  if (same) return same;
  const unit = byUnit(plain, known);
  if (unit) return unit;
  const maxLengthDifference = Math.max(2, Math.floor(plain.length * 0.34));
  let best: string | undefined;
  let bestDistance = Math.floor(plain.length * 0.4) + 1;
  for (const candidate of known) {
    const other = normal(candidate);
    if (Math.abs(other.length - plain.length) > maxLengthDifference) continue;
    const distance = editDistance(plain, other);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Lower case, without `_`, `-` and spaces. */
function normal(key: string): string {
  return key.toLowerCase().replace(/[\s_-]/g, '');
}

function byUnit(plain: string, known: readonly string[]): string | undefined {
  const stems = [plain];
  for (const unit of [...TIME_UNITS, ...SIZE_UNITS]) {
    if (plain.length > unit.length && plain.endsWith(unit)) stems.push(plain.slice(0, -unit.length));
  }
  return known.find((k) => {
    const other = normal(k);
    return stems.some((stem) => other === `${stem}ms` || other === `${stem}bytes`);
  });
}

/** Optimal string alignment distance: Levenshtein plus swaps of two neighbouring characters. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/**
 * "Did you mean" for mistyped command words and flags: the closest known spelling by edit
 * distance, or none when even the closest is too far off to help. Pure functions.
 */

/**
 * The candidate closest to `word` by edit distance (ties: the first in `candidates`), or
 * undefined when it needs more edits than half the length of `word` (at least 2 are allowed).
 */
export function closestWord(word: string, candidates: readonly string[]): string | undefined {
  return closestBy(word, candidates, (candidate) => editDistance(word, candidate))
}

/**
 * The id in `ids` closest to `id` (both colon-separated, e.g. `exec:serve`), counting a one-word
 * `id` also against each id's last word, so `srve` finds `exec:serve`. `ids` may hold topics
 * (`exec`) as well as commands. Same threshold and ties as `closestWord`.
 */
export function closestCommandId(id: string, ids: readonly string[]): string | undefined {
  const isOneWord = !id.includes(':')
  return closestBy(id, ids, (candidate) => {
    const lastWord = candidate.slice(candidate.lastIndexOf(':') + 1)
    return Math.min(editDistance(id, candidate), isOneWord ? editDistance(id, lastWord) : Number.POSITIVE_INFINITY)
  })
}

function closestBy(word: string, candidates: readonly string[], distanceOf: (candidate: string) => number): string | undefined {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const distance = distanceOf(candidate)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return bestDistance <= Math.max(2, Math.ceil(word.length / 2)) ? best : undefined
}

/** Levenshtein distance between `a` and `b` (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

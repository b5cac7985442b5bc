/**
 * Repeated, alternating runs and their summaries. Machines are shared and noisy, so every case
 * runs each contender several times, rotating the order each round, and compares medians.
 */
import {performance} from 'node:perf_hooks'

/** One timed run: wall time in ms, plus anything the case wants to show (match count, memory). */
export interface RunOutcome {
  ms: number
  facts?: Record<string, string>
}

/** A contender in one case: a name shown in the table and a function that performs one run. */
export interface Contender {
  name: string
  /** The version or description shown beside the name (e.g. "ripgrep 13.0.0"). */
  detail?: string
  run(round: number): Promise<RunOutcome>
}

/** Median, minimum and maximum of a contender's runs, in ms. */
export interface Summary {
  name: string
  detail?: string
  median: number
  min: number
  max: number
  runs: number
  /** Facts of the last run (they are the same every run unless the case says otherwise). */
  facts: Record<string, string>
  /** Set when the contender failed; then the times are NaN. */
  error?: string
}

/** Median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Times `body` with the monotonic clock, in ms. */
export async function timed<T>(body: () => Promise<T>): Promise<{ms: number; value: T}> {
  const started = performance.now()
  const value = await body()
  return {ms: performance.now() - started, value}
}

/**
 * Runs every contender `runs` times after `warmups` untimed rounds, rotating which one goes first
 * each round so that none always enjoys (or suffers) the same neighbour. A contender that throws
 * is dropped from later rounds and reported with its error.
 */
export async function alternate(contenders: Contender[], runs: number, warmups = 1): Promise<Summary[]> {
  const samples = new Map<string, number[]>(contenders.map((c) => [c.name, []]))
  const facts = new Map<string, Record<string, string>>()
  const errors = new Map<string, string>()
  for (let round = 0; round < warmups + runs; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length]!
      if (errors.has(contender.name)) continue
      try {
        const outcome = await contender.run(round)
        if (round >= warmups) samples.get(contender.name)!.push(outcome.ms)
        if (outcome.facts) facts.set(contender.name, {...facts.get(contender.name), ...outcome.facts})
      } catch (error) {
        errors.set(contender.name, (error as Error).message.split('\n')[0]!.slice(0, 300))
      }
    }
  }
  return contenders.map((c) => {
    const values = samples.get(c.name)!
    return {
      name: c.name,
      detail: c.detail,
      median: median(values),
      min: values.length ? Math.min(...values) : Number.NaN,
      max: values.length ? Math.max(...values) : Number.NaN,
      runs: values.length,
      facts: facts.get(c.name) ?? {},
      error: errors.get(c.name),
    }
  })
}

import {hurryStops} from '../process-group.js'

/**
 * The signals that end a server cleanly (exit 0, every command and dispatch stopped): SIGINT
 * (Ctrl-C), SIGTERM (a supervisor), SIGHUP (the terminal it ran in was closed). Handled alike by
 * every serving mode, stdio and HTTP.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** One of STOP_SIGNALS. */
export type StopSignal = (typeof STOP_SIGNALS)[number]

/**
 * Handles STOP_SIGNALS from now until `release()` (DESIGN §7: a stop that has begun always
 * finishes): the first one, unless the stop began already for another reason (`beginStop`: the
 * client went away), calls `onStop`; any later one makes the stop faster (see hurryStops) and
 * is otherwise ignored, so no signal ends the process by Node's default action before everything
 * it started is stopped. Release only once the stop is complete.
 */
export function holdStopSignals(onStop: (signal: StopSignal) => void): {beginStop: () => void; release: () => void} {
  let hasBegun = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (hasBegun) {
      hurryStops()
      return
    }
    hasBegun = true
    onStop(signal as StopSignal)
  }
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal)
  return {
    beginStop() {
      hasBegun = true
    },
    release() {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal)
    },
  }
}

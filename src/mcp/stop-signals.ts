/**
 * The signals that end a server cleanly (exit 0, every command and dispatch stopped): SIGINT
 * (Ctrl-C), SIGTERM (a supervisor), SIGHUP (the terminal it ran in was closed). Handled alike by
 * every serving mode, stdio and HTTP.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** One of STOP_SIGNALS. */
export type StopSignal = (typeof STOP_SIGNALS)[number]

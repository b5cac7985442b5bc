/**
 * AgentExec's limits and defaults, defined once with their units in their names. Tool
 * descriptions and the README quote these constants, so the text never disagrees with the code.
 */

/** Entries `list` shows for one folder before it stops and says how many it left out. */
export const LIST_MAX_ENTRIES = 1000

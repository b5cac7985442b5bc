import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'

import {FULL_SERVER_DESCRIPTORS, commandsWithin} from '../exec/descriptor-budget.js'
import {MAX_RUNNING_COMMANDS} from '../exec/terminal/limits.js'
import {type CheckResult, ok, warn} from './check.js'

/**
 * The descriptor limit a server started from here gets: the soft "Max open files" of this
 * process (Node.js raises it to the hard limit at start, as it does for the server), from
 * /proc/self/limits, else from `ulimit -n` in /bin/sh (macOS); undefined when unlimited or unknown.
 */
export function descriptorLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    if (line) return line[1] === 'unlimited' ? undefined : Number(line[1])
  } catch {
    // No /proc: ask a shell.
  }
  const shell = spawnSync('/bin/sh', ['-c', 'ulimit -n'], {encoding: 'utf8'})
  const value = Number(shell.stdout?.trim())
  return Number.isSafeInteger(value) && value > 0 ? value : undefined
}

/**
 * Checks that the descriptor limit leaves room for the MAX_RUNNING_COMMANDS commands ak runs at
 * once, with a full search pool (FULL_SERVER_DESCRIPTORS, see src/exec/descriptor-budget.ts).
 * @param limit the limit to judge (default: descriptorLimit())
 */
export function checkDescriptorLimit(limit: number | undefined = descriptorLimit()): CheckResult {
  if (limit === undefined) return ok('descriptors', 'no descriptor limit (ulimit -n) applies')
  const commands = commandsWithin(limit)
  if (commands >= MAX_RUNNING_COMMANDS) {
    return ok('descriptors', `ulimit -n is ${limit}: room for the ${MAX_RUNNING_COMMANDS} commands ak runs at once (a full server needs ${FULL_SERVER_DESCRIPTORS})`)
  }
  return warn(
    'descriptors',
    `ulimit -n is ${limit}: room for about ${commands} of the ${MAX_RUNNING_COMMANDS} commands ak runs at once (a full server needs ` +
      `${FULL_SERVER_DESCRIPTORS} descriptors); calls beyond it are answered "The server has too many files open"`,
    `raise the limit where the MCP client starts the server, e.g. "ulimit -n 1024" in its shell, or LimitNOFILE=1024 in its systemd unit`,
  )
}

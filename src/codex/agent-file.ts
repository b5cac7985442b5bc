import {AGENT_FILE_MAX_BYTES} from './limits.js'
import {notRegularReason} from './named-file.js'
import {type AgentPolicy, EMPTY_POLICY, PolicyError, agentPolicyOf} from './policy.js'
import {readTomlFile} from './toml-file.js'

/** Where an agent was found. */
export type AgentOrigin = {kind: 'project'} | {kind: 'user'} | {kind: 'kit'; kit: string}

/** One discovered agent: its slug (file name without `.toml`), file and origin. */
export interface AgentDefinition {
  slug: string
  /** Absolute path of the agent file. */
  file: string
  origin: AgentOrigin
}

/**
 * An agent file as read now:
 * - `ok`: parsed; its policy applies.
 * - `unreadable`: exists but cannot be read; listed with the empty (permissive) policy (DESIGN §5.2).
 * - `invalid`: read but not parsed, larger than AGENT_FILE_MAX_BYTES, or its policy cannot be
 *   enforced; every call fails with `reason`, so a typo never widens what an agent may do.
 * - `missing`: the file is gone; the agent is no longer installed and every call fails.
 * Restrictions never silently disappear (DESIGN §5.2).
 */
export type AgentFileState =
  | {status: 'ok'; name?: string; description?: string; policy: AgentPolicy}
  | {status: 'unreadable'; reason: string; policy: AgentPolicy}
  | {status: 'invalid'; reason: string}
  | {status: 'missing'; reason: string}

/**
 * Reads and parses an agent file (at most AGENT_FILE_MAX_BYTES bytes, opened without blocking:
 * see readNamedFile). Something other than a regular file under its name (a FIFO, a device, a
 * folder; a symlink when links are not followed) makes it invalid, so calls fail naming the file
 * rather than hang or lose the agent's restrictions. Never throws for the file's own problems.
 * @param options.followLinks false for a project agent (symlinked project agent files are not
 *   served, so one that became a symlink after discovery is refused); default true.
 */
export async function readAgentFile(file: string, options: {followLinks?: boolean} = {}): Promise<AgentFileState> {
  const read = await readTomlFile(file, AGENT_FILE_MAX_BYTES, options)
  switch (read.status) {
    case 'not-regular':
      return {status: 'invalid', reason: read.reason === notRegularReason('a symlink') ? `${read.reason}, and symlinked agent files in the project folder are not served` : read.reason}
    case 'missing':
      return {status: 'missing', reason: 'it no longer exists'}
    case 'unreadable':
      return {status: 'unreadable', reason: read.reason, policy: EMPTY_POLICY}
    case 'too-large':
      return {status: 'invalid', reason: `${read.reason}, the most ak reads of an agent file`}
    case 'invalid':
      return {status: 'invalid', reason: `it does not parse as TOML (${read.reason})`}
    case 'ok':
      break
  }
  try {
    const policy = agentPolicyOf(read.data)
    const state: AgentFileState = {status: 'ok', policy}
    if (typeof read.data.name === 'string') state.name = read.data.name
    if (typeof read.data.description === 'string') state.description = read.data.description
    return state
  } catch (error) {
    if (error instanceof PolicyError) return {status: 'invalid', reason: `its policy cannot be enforced: ${error.message}`}
    throw error
  }
}

/** How an agent of this origin is read: a project agent file is never followed through a symlink. */
export function agentFileOptions(origin: AgentOrigin): {followLinks: boolean} {
  return {followLinks: origin.kind !== 'project'}
}

/** "project", "user" or "kit <name>", for lists and logs. */
export function describeOrigin(origin: AgentOrigin): string {
  return origin.kind === 'kit' ? `kit ${origin.kit}` : origin.kind
}

/** A reason as the end of a sentence: with its final period, never two. */
export function asSentenceEnd(reason: string): string {
  return /[.!?]$/.test(reason) ? reason : `${reason}.`
}

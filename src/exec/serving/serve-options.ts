import {BadInputError} from '../../errors.js'
import {TOKEN_ENV} from '../http/bearer-token.js'
import {type ListenAddress, parseListenAddress} from '../http/listen-address.js'
import {DEFAULT_LEVEL, LEVELS, type Level, parseLevel} from '../level.js'
import {HTTP_SESSION_IDLE_MS, JOURNAL_DEFAULT_MAX_BYTES} from '../limits.js'
import type {JournalSetting} from '../journal/journal.js'
import {ALLOW_PROTECTED_FLAG_HELP, AllowedProtectedPaths, splitAllowProtectedFlag} from '../protected-paths.js'

/** Bytes in a MiB, the unit of --journal-max-mib. */
const MIB = 1024 * 1024
import {
  DEFAULT_SANDBOX_MODE,
  SANDBOX_FLAG_HELP,
  SANDBOX_MODES,
  SANDBOX_NETWORK_FLAG_HELP,
  type SandboxPolicy,
  parseSandboxPolicy,
} from '../terminal/sandbox-policy.js'

/**
 * One command-line option of the AgentExec server, declared once and turned into an oclif flag
 * for `ak exec serve` (src/exec-flags.ts) and into a `node:util` `parseArgs` option for the
 * standalone `dist/agentexec.js` (src/exec/serving/serve-command-line.ts). Values arrive as the user
 * typed them; `resolveServeSettings` checks and converts them for both entries.
 */
export interface ServeOption {
  type: 'string' | 'boolean'
  /** One-letter alias (`-w`). */
  char?: string
  /** Help text: what it does, its default. */
  description: string
  /** The value's placeholder in help (`HOST:PORT`). */
  helpValue?: string
  /** The only values accepted (checked by both parsers, with the same message). */
  options?: readonly string[]
  /** The value when the option is absent. */
  default?: string
  /** Left out of help (test and operator knobs). */
  hidden?: boolean
}

/**
 * The options of the AgentExec server (DESIGN §4.1), in help order. Both `ak exec serve` and
 * `dist/agentexec.js` take exactly these (plus their own `--quiet`, `--help`, `--version`): an
 * option added here reaches both, and `resolveServeSettings` is where its value is checked.
 */
export const EXEC_SERVE_OPTIONS = {
  workspace: {
    type: 'string',
    char: 'w',
    description: 'Folder the tools are confined to. Default: the current directory.',
    helpValue: 'DIR',
  },
  level: {
    type: 'string',
    char: 'l',
    description: `Access level: ${LEVELS.join(' | ')}.`,
    options: LEVELS,
    default: DEFAULT_LEVEL,
  },
  sandbox: {
    type: 'string',
    description: SANDBOX_FLAG_HELP,
    options: SANDBOX_MODES,
    default: DEFAULT_SANDBOX_MODE,
    helpValue: 'MODE',
  },
  'sandbox-network': {
    type: 'boolean',
    description: SANDBOX_NETWORK_FLAG_HELP,
  },
  http: {
    type: 'string',
    description: `Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio. HOST must be loopback; port 0 picks a free one. Needs ${TOKEN_ENV}.`,
    helpValue: 'HOST:PORT',
  },
  'allow-protected': {
    type: 'string',
    description: ALLOW_PROTECTED_FLAG_HELP,
    helpValue: 'PATHS',
  },
  'journal-max-mib': {
    type: 'string',
    description: `MiB of past changes the workspace's journal keeps for ak exec undo (oldest go first); 0 keeps none. Default ${JOURNAL_DEFAULT_MAX_BYTES / MIB}.`,
    helpValue: 'MIB',
  },
  'session-idle-ms': {
    type: 'string',
    description: `Idle expiry of a 2025-era HTTP session, in ms (default ${HTTP_SESSION_IDLE_MS}).`,
    hidden: true,
  },
} as const satisfies Record<string, ServeOption>

/** The raw values of EXEC_SERVE_OPTIONS as either parser hands them over. */
export type ServeOptionValues = {[Name in keyof typeof EXEC_SERVE_OPTIONS]?: (typeof EXEC_SERVE_OPTIONS)[Name]['type'] extends 'boolean' ? boolean : string}

/** What the server will do, once every option has been checked. */
export interface ServeSettings {
  /** The workspace folder as given (or the current directory); `Workspace.open` checks it (an empty one too). */
  workspace: string
  level: Level
  /** The terminal sandbox asked for (parseSandboxPolicy); whether it can run is checked at start. */
  sandbox: SandboxPolicy
  /** The journal's bound (`false`: keep no history); the default when undefined. */
  journal?: JournalSetting
  /** The protected paths the operator made writable (`--allow-protected`). */
  allowedProtected: AllowedProtectedPaths
  /** Serve HTTP here; stdio when undefined. */
  http?: {address: ListenAddress; token: string; sessionIdleMs?: number}
}

/**
 * Checks the option values of either entry and the environment (`AGENTEXEC_TOKEN`), in the
 * order the user reads them: level, sandbox, HTTP address, token, idle expiry. The workspace itself is
 * checked when the server opens it (`Workspace.open`).
 * @param values the options as typed (strings, booleans)
 * @param env the process environment (the token comes from `AGENTEXEC_TOKEN`)
 * @param cwd the default workspace
 * @throws BadInputError (exit code 2) naming the option, what was wrong and what to do
 */
export function resolveServeSettings(values: ServeOptionValues, env: NodeJS.ProcessEnv, cwd: string): ServeSettings {
  const level = parseLevel(values.level ?? DEFAULT_LEVEL)
  const sandbox = parseSandboxPolicy({sandbox: values.sandbox, sandboxNetwork: values['sandbox-network'] === true})
  const allowedProtected = AllowedProtectedPaths.parse(splitAllowProtectedFlag(values['allow-protected']), values.workspace ?? cwd)
  const settings: ServeSettings = {workspace: values.workspace ?? cwd, level, sandbox, allowedProtected}
  const journalMib = values['journal-max-mib']
  if (journalMib !== undefined) {
    if (!/^\d+$/.test(journalMib.trim()) || !Number.isSafeInteger(Number(journalMib) * MIB)) {
      throw new BadInputError(`--journal-max-mib "${journalMib}" is not a whole number of MiB (0 keeps no history; the default is ${JOURNAL_DEFAULT_MAX_BYTES / MIB}).`)
    }
    settings.journal = Number(journalMib) === 0 ? false : {maxBytes: Number(journalMib) * MIB}
  }
  if (values.http === undefined) return settings
  const address = parseListenAddress(values.http)
  const token = env[TOKEN_ENV] ?? ''
  if (token.trim() === '') {
    throw new BadInputError(
      `--http needs a token in ${TOKEN_ENV}, which is missing or empty. Generate one, e.g. ` +
        `\`export ${TOKEN_ENV}=$(openssl rand -hex 32)\`, and give it to the client as "Authorization: Bearer <token>".`,
    )
  }
  const idle = values['session-idle-ms']
  if (idle !== undefined && !/^[1-9]\d*$/.test(idle.trim())) {
    throw new BadInputError(`--session-idle-ms "${idle}" is not a whole number of milliseconds above 0.`)
  }
  settings.http = {address, token, ...(idle === undefined ? {} : {sessionIdleMs: Number(idle)})}
  return settings
}

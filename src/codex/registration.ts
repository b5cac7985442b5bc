import {randomBytes} from 'node:crypto'
import {copyFile, constants, realpath, rename, stat, writeFile, unlink} from 'node:fs/promises'
import path from 'node:path'
import {isDeepStrictEqual} from 'node:util'

import {createTwoFilesPatch} from 'diff'

import {BadInputError, DispatchFailedError, NotFoundError} from '../errors.js'
import {type AkInstall, akCommandLaunch, currentAkInstall} from '../launch/config-launch.js'
import {CODEX_APPROVAL_COMMENT, CODEX_APPROVAL_KEY, CODEX_APPROVAL_WITHOUT_ASKING} from '../launch/codex-tool-approval.js'
import {
  CODEX_REQUIRED_COMMENT,
  CODEX_REQUIRED_KEY,
  CODEX_STARTUP_TIMEOUT_KEY,
  CODEX_STARTUP_TIMEOUT_MS_KEY,
  CODEX_STARTUP_TIMEOUT_SEC,
} from '../launch/codex-server-start.js'
import {codexConfigPath} from './codex-config.js'
import {shellQuote} from './inspect.js'
import {CODEX_CONFIG_MAX_BYTES, REGISTERED_TOOL_TIMEOUT_SEC, SERVER_NAME_MAX_CHARS} from './limits.js'
import {mcpServersOf, runsAgentRuntime} from './mcp-servers.js'
import {notRegularReason, readNamedFile} from './named-file.js'
import type {CodexRoots} from './roots.js'
import {parseToml} from './toml-file.js'
import {type KeyEdit, appendTable, lineEnding, parseTomlDocument, removeTables, setTableKeys, tableText, tablesOf} from './toml-edit.js'
import {tomlKey, tomlValue} from './toml-value.js'

/**
 * Environment variables a dispatched `codex exec` may need and that Codex does not pass to MCP
 * servers by itself (it starts them with HOME, PATH, SHELL, USER and a few more; notes/codex.md §3).
 * The `env_key` of every `[model_providers.*]` in the config is added to these.
 */
export const FORWARDED_ENV_VARS = ['OPENAI_API_KEY', 'CODEX_API_KEY', 'OPENAI_BASE_URL']

/** The `[mcp_servers.<name>]` entry that starts this runtime. */
export interface RegistrationEntry {
  command: string
  args: string[]
  env_vars?: string[]
  /** `true`, so Codex fails instead of running without the runtime (codex-server-start.ts). */
  [CODEX_REQUIRED_KEY]?: boolean
  /** CODEX_STARTUP_TIMEOUT_SEC, so a loaded machine still starts the runtime in time. */
  [CODEX_STARTUP_TIMEOUT_KEY]?: number
  tool_timeout_sec?: number
  /** `approve`, so `codex exec` runs agent calls instead of declining them (codex-tool-approval.ts). */
  [CODEX_APPROVAL_KEY]?: string
}

/** A planned edit of `<codexHome>/config.toml`, shown to the user before it is written. */
export interface ConfigChange {
  /** The file written (symlinks resolved). */
  configPath: string
  name: string
  action: 'add' | 'replace' | 'remove' | 'none'
  /** The file's text now (undefined when it does not exist) and after the edit. */
  before: string | undefined
  after: string
  /** The entry's lines as written (add, replace) or as removed (remove). */
  block: string
  /** A unified diff of the file from `before` to `after`; empty when nothing changes. */
  diff: string
  /**
   * register over an entry whose `default_tools_approval_mode` the user set to something other
   * than `approve`: that value, kept (Codex then asks before each agent call; codex exec declines them).
   */
  keptApprovalMode?: string
}

/**
 * Checks a server name for `--name`: letters, digits, `_` and `-`, at most SERVER_NAME_MAX_CHARS
 * (11) characters, so `mcp__<name>__agent_<slug>` stays within 64 characters.
 * @throws BadInputError
 */
export function checkServerName(name: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(name) || name.length > SERVER_NAME_MAX_CHARS) {
    throw new BadInputError(
      `--name "${name}" is not usable: use letters, digits, "_" and "-", at most ${SERVER_NAME_MAX_CHARS} characters ` +
        `(so a client's tool names mcp__<name>__agent_<slug> stay within 64 characters).`,
    )
  }
  return name
}

/**
 * The entry that starts `ak codex-agent-runtime serve` in the form that fits where ak runs from
 * (`akCommandLaunch`: absolute paths of the Node.js binary and ak's entry file from a clone, the
 * `ak` bin or `npx -y @agentorg/ak@<version>` from an installed package; `install` defaults to
 * this ak, its bins looked for on `env.PATH`), the roots passed explicitly, `required = true` and
 * `startup_timeout_sec = CODEX_STARTUP_TIMEOUT_SEC` (Codex fails loudly rather than running
 * without the runtime: codex-server-start.ts), `tool_timeout_sec = REGISTERED_TOOL_TIMEOUT_SEC`, `env_vars` naming the variables of FORWARDED_ENV_VARS and the
 * config's provider `env_key`s that are set in `env`, and `default_tools_approval_mode =
 * "approve"`: agent tools are not read-only, so `codex exec`, which cannot ask, would decline
 * every agent call without it.
 */
export function registrationEntry(roots: CodexRoots, config: Record<string, unknown>, env: NodeJS.ProcessEnv, install: AkInstall = currentAkInstall(env.PATH)): RegistrationEntry {
  const providerKeys = Object.values((config.model_providers as Record<string, {env_key?: unknown}> | undefined) ?? {})
    .map((provider) => provider?.env_key)
    .filter((key): key is string => typeof key === 'string')
  const envVars = [...new Set([...FORWARDED_ENV_VARS, ...providerKeys])].filter((name) => env[name] !== undefined && env[name] !== '')
  const launch = akCommandLaunch(install, ['codex-agent-runtime', 'serve', '--codex-home', roots.codexHome, '--plugin-root', roots.pluginRoot])
  const entry: RegistrationEntry = {command: launch.command, args: launch.args}
  if (envVars.length > 0) entry.env_vars = envVars
  entry[CODEX_REQUIRED_KEY] = true
  entry[CODEX_STARTUP_TIMEOUT_KEY] = CODEX_STARTUP_TIMEOUT_SEC
  entry.tool_timeout_sec = REGISTERED_TOOL_TIMEOUT_SEC
  entry[CODEX_APPROVAL_KEY] = CODEX_APPROVAL_WITHOUT_ASKING
  return entry
}

/** The entry as TOML lines, without terminators; the approval mode under its comment line. */
export function renderEntry(name: string, entry: RegistrationEntry): string[] {
  return [
    `[mcp_servers.${tomlKey(name)}]`,
    ...Object.entries(entry).flatMap(([key, value]) => {
      const comment = commentAbove(key)
      return [...(comment === undefined ? [] : [`# ${comment}`]), `${key} = ${tomlValue(value)}`]
    }),
  ]
}

/** The comment ak writes on the line above a key it owns, if any. */
function commentAbove(key: string): string | undefined {
  if (key === CODEX_REQUIRED_KEY) return CODEX_REQUIRED_COMMENT
  return key === CODEX_APPROVAL_KEY ? CODEX_APPROVAL_COMMENT : undefined
}

/**
 * The keys `register` owns in an existing entry of this runtime and the values to write: the
 * command and args when they differ, `tool_timeout_sec` when it is missing or shorter than
 * REGISTERED_TOOL_TIMEOUT_SEC, and `env_vars`, `required`, the start-up timeout (either of Codex's
 * two keys) and `default_tools_approval_mode` only when the entry has none (a user who set
 * `required = false`, a start-up timeout of their own, or the mode to be asked, keeps it). Every other key is the
 * user's and is kept (DESIGN §5.5).
 */
export function ownedKeyUpdates(existing: Record<string, unknown>, entry: RegistrationEntry): Partial<RegistrationEntry> {
  const updates: Partial<RegistrationEntry> = {}
  if (!sameToml(existing.command, entry.command)) updates.command = entry.command
  if (!sameToml(existing.args, entry.args)) updates.args = entry.args
  if (entry.env_vars && existing.env_vars === undefined) updates.env_vars = entry.env_vars
  if (entry[CODEX_REQUIRED_KEY] !== undefined && existing[CODEX_REQUIRED_KEY] === undefined) updates[CODEX_REQUIRED_KEY] = entry[CODEX_REQUIRED_KEY]
  const ownStartupTimeout = existing[CODEX_STARTUP_TIMEOUT_KEY] !== undefined || existing[CODEX_STARTUP_TIMEOUT_MS_KEY] !== undefined
  if (entry[CODEX_STARTUP_TIMEOUT_KEY] !== undefined && !ownStartupTimeout) updates[CODEX_STARTUP_TIMEOUT_KEY] = entry[CODEX_STARTUP_TIMEOUT_KEY]
  if (entry[CODEX_APPROVAL_KEY] !== undefined && existing[CODEX_APPROVAL_KEY] === undefined) updates[CODEX_APPROVAL_KEY] = entry[CODEX_APPROVAL_KEY]
  const timeout = existing.tool_timeout_sec
  if (!(typeof timeout === 'number' && timeout >= REGISTERED_TOOL_TIMEOUT_SEC)) updates.tool_timeout_sec = REGISTERED_TOOL_TIMEOUT_SEC
  return updates
}

/**
 * Plans `register`: adds `[mcp_servers.<name>]` after a blank line at the end of the config, or
 * over an earlier registration of this runtime under that name updates only the keys ak owns
 * (ownedKeyUpdates), leaving every other byte as it was.
 * @throws BadInputError when the config does not parse, when `<name>` is taken by another server,
 *   or when the edit cannot be made as text without changing anything else; NotFoundError when
 *   the Codex home does not exist.
 */
export async function planRegister(roots: CodexRoots, name: string, env: NodeJS.ProcessEnv = process.env): Promise<ConfigChange> {
  const {configPath, before, data} = await readConfigForEdit(roots.codexHome)
  const existing = mcpServersOf(data)[name]
  if (existing && !runsAgentRuntime(existing)) {
    throw new BadInputError(`${configPath} already has an MCP server "${name}" that is not this runtime. Choose another --name.`)
  }
  const entry = registrationEntry(roots, data, env)
  const text = before ?? ''
  const eol = lineEnding(text)
  if (!existing) {
    const lines = renderEntry(name, entry)
    const after = appendTable(text, lines, eol)
    checkEdit(configPath, name, data, after, {...entry})
    return change(configPath, name, 'add', before, after, lines.join(eol) + eol)
  }
  const updates = ownedKeyUpdates(existing, entry)
  const userMode = existing[CODEX_APPROVAL_KEY]
  const kept = userMode !== undefined && userMode !== CODEX_APPROVAL_WITHOUT_ASKING ? {keptApprovalMode: String(userMode)} : {}
  if (Object.keys(updates).length === 0) {
    const [table] = tablesOf(documentOf(configPath, text), ['mcp_servers', name])
    return {...change(configPath, name, 'none', before, text, table ? tableText(text, table) : ''), ...kept}
  }
  const table = tablesOf(documentOf(configPath, text), ['mcp_servers', name]).find((candidate) => candidate.resolvedKey.length === 2)
  if (!table) throw cannotEditAsText(configPath, name)
  const edits: KeyEdit[] = Object.entries(updates).map(([key, value]) => ({key, value: tomlValue(value), comment: commentAbove(key)}))
  const after = setTableKeys(text, table, edits, eol)
  checkEdit(configPath, name, data, after, {...existing, ...updates})
  const [written] = tablesOf(parseTomlDocument(after), ['mcp_servers', name])
  return {...change(configPath, name, 'replace', before, after, written ? tableText(after, written) : ''), ...kept}
}

/**
 * Plans `unregister`: removes `[mcp_servers.<name>]` and its subtables, leaving every other byte
 * as it was, so register then unregister gives back the same bytes. Nothing to do when there is
 * no such entry.
 * @throws BadInputError when the config does not parse, the entry is not this runtime, or it is
 *   not written as a table of its own.
 */
export async function planUnregister(codexHome: string, name: string): Promise<ConfigChange> {
  const {configPath, before, data} = await readConfigForEdit(codexHome)
  const existing = mcpServersOf(data)[name]
  const text = before ?? ''
  if (!existing) return change(configPath, name, 'none', before, text, '')
  if (!runsAgentRuntime(existing)) {
    throw new BadInputError(`The MCP server "${name}" in ${configPath} is not this runtime; ak leaves it alone. Check --name.`)
  }
  const tables = tablesOf(documentOf(configPath, text), ['mcp_servers', name])
  if (!tables.some((table) => table.resolvedKey.length === 2)) throw cannotEditAsText(configPath, name)
  const after = removeTables(text, tables)
  checkEdit(configPath, name, data, after, undefined)
  return change(configPath, name, 'remove', before, after, tables.map((table) => tableText(text, table)).join(''))
}

/** The config's source ranges. @throws BadInputError when the range parser refuses a file smol-toml read. */
function documentOf(configPath: string, text: string): ReturnType<typeof parseTomlDocument> {
  try {
    return parseTomlDocument(text)
  } catch (error) {
    throw new BadInputError(`ak cannot locate the entries of ${configPath} to edit them (${error instanceof Error ? error.message : String(error)}). Nothing was changed; edit the file by hand.`)
  }
}

function change(configPath: string, name: string, action: ConfigChange['action'], before: string | undefined, after: string, block: string): ConfigChange {
  const diff = action === 'none' ? '' : createTwoFilesPatch(configPath, configPath, before ?? '', after, before === undefined ? '(new file)' : '', '', {context: 3})
  return {configPath, name, action, before, after, block, diff: diff.replace(/^Index: .*\n=+\n/, '')}
}

/**
 * Writes a planned change: first a backup copy of the current file next to it
 * (`config.toml.bak-<UTC time>`), then the new text through a temporary file renamed over the
 * old one (keeping its mode), so the file is never half-written.
 * @returns the backup's path (undefined when the file did not exist before).
 * @throws DispatchFailedError when the file changed since it was planned.
 */
export async function applyConfigChange(change: ConfigChange): Promise<{backupPath: string | undefined}> {
  if (change.action === 'none') return {backupPath: undefined}
  const now = await readConfigText(change.configPath).catch(() => undefined)
  if (now !== change.before) throw new DispatchFailedError(`${change.configPath} changed while ak was editing it; nothing was written. Run the command again.`)
  let backupPath: string | undefined
  let mode = 0o600
  if (change.before !== undefined) {
    backupPath = `${change.configPath}.bak-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`
    await copyFile(change.configPath, backupPath, constants.COPYFILE_EXCL).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error
      backupPath = `${backupPath}-${randomBytes(3).toString('hex')}`
      await copyFile(change.configPath, backupPath, constants.COPYFILE_EXCL)
    })
    mode = (await stat(change.configPath)).mode & 0o7777
  }
  const temporary = path.join(path.dirname(change.configPath), `.config.toml.ak-${randomBytes(6).toString('hex')}`)
  try {
    await writeFile(temporary, change.after, {mode, flag: 'wx'})
    await rename(temporary, change.configPath)
  } catch (error) {
    await unlink(temporary).catch(() => undefined)
    throw error
  }
  return {backupPath}
}

async function readConfigForEdit(codexHome: string): Promise<{configPath: string; before: string | undefined; data: Record<string, unknown>}> {
  const home = await stat(codexHome).catch(() => undefined)
  if (!home) {
    throw new NotFoundError(
      `The Codex home ${codexHome} does not exist. Create it (mkdir -p ${shellQuote(codexHome)}, or run Codex once for its default ~/.codex), ` +
        `or pass --codex-home the Codex home you use.`,
    )
  }
  if (!home.isDirectory()) {
    throw new NotFoundError(`The Codex home ${codexHome} is not a folder. Move the file away, or pass --codex-home the Codex home you use.`)
  }
  let configPath = codexConfigPath(codexHome)
  configPath = await realpath(configPath).catch(() => configPath) // edit the file a symlinked config points at
  const before = await readConfigText(configPath)
  if (before === undefined) return {configPath, before, data: {}}
  const parsed = parseToml(before)
  if ('reason' in parsed) {
    throw new BadInputError(`${configPath} does not parse (${parsed.reason}); ak will not edit a file it cannot read. Fix it first; nothing was changed.`)
  }
  return {configPath, before, data: parsed.data}
}

/**
 * The text of the config file to edit, undefined when there is none; opened as readNamedFile
 * opens a file ak reads because of its name (never blocking on a FIFO).
 * @throws BadInputError when it is not a regular file or is larger than CODEX_CONFIG_MAX_BYTES;
 *   the system's error when it cannot be read.
 */
async function readConfigText(configPath: string): Promise<string | undefined> {
  const read = await readNamedFile(configPath, {maxBytes: CODEX_CONFIG_MAX_BYTES, followLinks: true})
  switch (read.status) {
    case 'ok':
      return read.bytes.toString('utf8')
    case 'missing':
      return undefined
    case 'not-regular':
      throw new BadInputError(`${configPath} cannot be edited: ${notRegularReason(read.kind)}. Put Codex's config file there, or pass --codex-home the Codex home you use.`)
    case 'too-large':
      throw new BadInputError(`${configPath} is larger than ${CODEX_CONFIG_MAX_BYTES} bytes; ak will not edit it.`)
    case 'error':
      throw read.error
  }
}

/** The edit must parse, hold exactly `entry` under the name (or nothing), and leave everything else equal. */
function checkEdit(configPath: string, name: string, before: Record<string, unknown>, after: string, entry: Record<string, unknown> | undefined): void {
  const parsed = parseToml(after)
  if ('reason' in parsed) throw cannotEditAsText(configPath, name)
  const servers = mcpServersOf(parsed.data)
  if (entry ? !sameToml(servers[name], entry) : servers[name] !== undefined) throw cannotEditAsText(configPath, name)
  if (!sameToml(withoutServer(parsed.data, name), withoutServer(before, name))) throw cannotEditAsText(configPath, name)
}

function withoutServer(config: Record<string, unknown>, name: string): Record<string, unknown> {
  const servers = {...(config.mcp_servers as Record<string, unknown> | undefined)}
  delete servers[name]
  const copy = {...config}
  if (Object.keys(servers).length > 0) copy.mcp_servers = servers
  else delete copy.mcp_servers
  return copy
}

function cannotEditAsText(configPath: string, name: string): BadInputError {
  return new BadInputError(
    `ak cannot edit [mcp_servers.${name}] in ${configPath} without changing anything else (the servers may be written ` +
      `as an inline table or dotted keys). Nothing was changed; edit the file by hand.`,
  )
}

/** Deep equality of parsed TOML values, ignoring prototypes (smol-toml makes null-prototype tables). */
function sameToml(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(plain(a), plain(b))
}

function plain(value: unknown): unknown {
  if (value instanceof Date) return {date: value.toISOString()}
  if (Array.isArray(value)) return value.map(plain)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]))
  return value
}

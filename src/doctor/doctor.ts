import {readCodexConfig} from '../codex/codex-config.js'
import {mcpServersOf, runsAgentRuntime} from '../codex/mcp-servers.js'
import {resolveRoots} from '../codex/roots.js'
import {checkAgents, checkPluginRoot} from './agents-check.js'
import {type CheckResult, type DoctorEnvironment, type DoctorReport, type DoctorServer, type ReportedCheck, akFix, fail} from './check.js'
import {checkClientEntries} from './client-entries-check.js'
import {checkCodexCli} from './codex-cli-check.js'
import {checkCodexConfig, checkCodexHome, isFolder} from './codex-home-check.js'
import {checkDescriptorLimit} from './descriptor-check.js'
import {checkExecServe} from './exec-serve-check.js'
import {checkExecSandbox} from './sandbox-check.js'
import {checkProtectedPaths} from './protected-check.js'
import {checkNode} from './node-check.js'
import {checkRegistration} from './registration-check.js'
import {checkProjectTrust} from './trust-check.js'
import {checkExecApproval} from './tool-approval-check.js'
import {checkHttpTokens} from './http-token-check.js'
import {checkExecStartup} from './codex-startup-check.js'

/**
 * Runs every `ak doctor` check, in report order and grouped by server: Node.js (ak); that
 * `ak exec serve` starts on the current folder, whether its terminal sandbox can run here, what it
 * protects (and whether a protected name here is a link the sandbox refuses), whether
 * the descriptor limit leaves room for the commands it runs at once, whether Codex would decline
 * the tools of the AgentExec entries in its config.toml, whether those entries make Codex wait
 * for AgentExec and fail loudly (`required`, a start-up timeout), whether the
 * token variable of each loopback HTTP entry is set and accepted, and whether the AgentExec entries of Gemini CLI,
 * OpenCode, Cursor, Windsurf and Zed start (AgentExec); the codex CLI, the Codex home and its
 * config.toml, the trust of the current project's agents, the agent runtime's registration, the
 * plugin root and the agents discovery finds (Codex agent runtime). Fix commands repeat the
 * `--codex-home` and `--plugin-root` doctor was given. Checks never
 * throw for what they examine: a problem is a result.
 *
 * One rule joins two checks: a missing `codex` is a warning on its own (only agent calls need
 * it), but a failure when the agent runtime is registered (and starts), since every agent call
 * would fail.
 * @throws BadInputError when `--codex-home` or `--plugin-root` is given but empty.
 */
export async function runDoctor(environment: DoctorEnvironment): Promise<DoctorReport> {
  const roots = resolveRoots(
    {codexHome: environment.codexHome, pluginRoot: environment.pluginRoot},
    {env: environment.env, cwd: environment.cwd, homeDir: environment.homeDir},
  )
  const config = await readCodexConfig(roots.codexHome)
  const codex = await checkCodexCli(environment)
  const registration = await checkRegistration(roots.codexHome, config, environment)
  // Registered and starting: a warning (a short timeout, agent calls needing approval) still leaves agent calls to codex.
  const isRegistered = registration.status !== 'fail' && config.status === 'ok' && Object.values(mcpServersOf(config.data)).some(runsAgentRuntime)
  const home = await checkCodexHome(roots.codexHome, {given: environment.codexHome !== undefined || Boolean(environment.env.CODEX_HOME?.trim())})
  const inPart = (server: DoctorServer, results: CheckResult[]): ReportedCheck[] => results.map((result) => ({server, ...result}))
  const checks: ReportedCheck[] = [
    ...inPart('ak', [checkNode()]),
    ...inPart('exec', [
      await checkExecServe(environment),
      await checkExecSandbox(environment),
      await checkProtectedPaths(environment),
      checkDescriptorLimit(),
      checkExecApproval(roots.codexHome, config),
      checkExecStartup(roots.codexHome, config),
      await checkHttpTokens(roots.codexHome, config, environment.env),
      await checkClientEntries(environment),
    ]),
    ...inPart('codex-agent-runtime', [
      isRegistered && codex.status !== 'ok' ? fail(codex.check, `${codex.detail}; the agent runtime is registered`, codex.fix ?? '') : codex,
      home,
      checkCodexConfig(roots.codexHome, config, akFix(['codex-agent-runtime', 'register'], roots, environment), {homeExists: await isFolder(roots.codexHome)}),
      await checkProjectTrust(roots.codexHome, config, environment.cwd, environment.homeDir),
      registration,
      await checkPluginRoot(roots.pluginRoot),
      await checkAgents(roots, {cwd: environment.cwd, homeDir: environment.homeDir, listFix: akFix(['codex-agent-runtime', 'serve', '--list-only'], roots, environment)}),
    ]),
  ]
  return {ok: checks.every((check) => check.status !== 'fail'), checks}
}

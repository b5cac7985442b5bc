/**
 * The standalone AgentExec server, `node dist/agentexec.js [--workspace DIR] [--level L]
 * [--http HOST:PORT] [--quiet]` (DESIGN §4.1, §4.7): the same server as `ak exec serve`, with the
 * same options, exit codes and stderr lines, but no oclif and no Codex code, so it starts faster.
 * scripts/build.js bundles it into dist/agentexec-bundle.cjs, which the `agentexec` launcher
 * dist/agentexec.js runs.
 */
import {AkError, EXIT_FAILURE, exitCodeFor} from './errors.js'
import {stderrLogger} from './log.js'
import {TOKEN_ENV} from './exec/http/bearer-token.js'
import {serveAgentExec} from './exec/serving/serve.js'
import {directServeRequest, parseStandaloneArgs, standaloneHelp} from './exec/serving/serve-command-line.js'
import {type ServeOptionValues, resolveServeSettings} from './exec/serving/serve-options.js'
import {AK_VERSION} from './version.js'

/** The standalone server's command name (its `bin` entry in package.json). */
export const STANDALONE_PROGRAM = 'agentexec'

const SUMMARY = `AgentExec: files and a terminal confined to one workspace, served over MCP (the same server as "ak exec serve").

Serves stdio until stdin closes or SIGINT/SIGTERM arrives; stdout carries MCP frames only, and one line per tool call goes to stderr (silenced by --quiet). With --http HOST:PORT it serves Streamable HTTP at http://HOST:PORT/mcp instead, on a loopback address only, and every request must carry "Authorization: Bearer $${TOKEN_ENV}".

Levels, each containing the one before: read (read, list, search), files (adds edit), terminal (adds exec_command and write_stdin). At the terminal level a command can do anything the server's user can.

Exit codes: 0 served and ended cleanly, 1 the server failed, 2 invalid options or workspace.`

/**
 * Runs the standalone server with `args` (without `node` and the script). Help and the version
 * go to stdout; everything else to stderr. Never throws: the outcome is `process.exitCode`
 * (0, 1 for a failure, 2 for invalid options), with one `Error: …` line on stderr.
 */
export async function runAgentExec(args: string[]): Promise<void> {
  await reportingExitCode(async () => {
    const request = parseStandaloneArgs(args, STANDALONE_PROGRAM)
    if (request.kind === 'help') process.stdout.write(standaloneHelp(STANDALONE_PROGRAM, SUMMARY))
    else if (request.kind === 'version') process.stdout.write(`${STANDALONE_PROGRAM} ${AK_VERSION}\n`)
    else await serve(request.values, request.quiet)
  })
}

/**
 * `ak exec serve …` without oclif: when `args` (after `exec serve`) ask only to serve, serves
 * exactly as the oclif command would (same options, stderr lines, exit codes) and returns true;
 * otherwise returns false at once, having done nothing, and the caller runs oclif. Loading oclif
 * costs more than the rest of a server's start-up, and MCP clients start servers often.
 */
export async function serveDirectly(args: string[]): Promise<boolean> {
  const request = directServeRequest(args)
  if (!request) return false
  await reportingExitCode(() => serve(request.values, request.quiet))
  return true
}

async function serve(values: ServeOptionValues, quiet: boolean): Promise<void> {
  const settings = resolveServeSettings(values, process.env, process.cwd())
  await serveAgentExec(settings, stderrLogger({quiet, prefix: 'ak exec'}))
}

/** Runs `body`, turning a thrown error into one `Error: …` line and the exit code ak uses for it. */
async function reportingExitCode(body: () => Promise<void>): Promise<void> {
  try {
    await body()
  } catch (error) {
    const known = error instanceof AkError
    process.stderr.write(`Error: ${known ? error.message : ((error as Error).stack ?? String(error))}\n`)
    process.exitCode = known ? exitCodeFor(error) : EXIT_FAILURE
  }
}

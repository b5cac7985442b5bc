import {z} from 'zod'

import {BadInputError, NotFoundError} from '../../errors.js'
import {withFolder} from '../files/confined-open.js'
import type {Workspace} from '../workspace.js'
import {type CommandAnswer, NO_SESSION, commandAnswerSchema, renderCommandAnswer} from '../terminal/answer.js'
import type {CommandSession} from '../terminal/command-session.js'
import type {CommandSessions} from '../terminal/command-sessions.js'
import {
  CHARS_PER_TOKEN,
  COMMAND_IDLE_LIMIT_MS,
  COMMAND_PREVIEW_CHARS,
  DEFAULT_EXEC_YIELD_TIME_MS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  MAX_COMMAND_BYTES,
  MAX_OUTPUT_TOKENS,
  MAX_RUNNING_COMMANDS,
  MAX_YIELD_TIME_MS,
  MIN_YIELD_TIME_MS,
  UNPOLLED_AFTER_MS,
  UNPOLLED_OUTPUT_BUFFER_CHARS,
  execYieldTimeMs,
  maxOutputTokens,
} from '../terminal/limits.js'
import {parseCodexSandboxState} from '../terminal/codex-sandbox-state.js'
import {commandSessionsFor} from '../terminal/runtime-sessions.js'
import {NO_SANDBOX, type SandboxPolicy, describeSandbox} from '../terminal/sandbox-policy.js'
import {ignoredArgumentsNote} from '../../mcp/tool-input.js'
import {TASK_STATUS_MESSAGE_CHARS} from '../../mcp/tasks/limits.js'
import {boundedStatusMessage} from '../../mcp/tasks/task-store.js'
import type {ToolTask} from '../context.js'
import {clampedNumberField, textField} from './input-fields.js'
import {type ToolAnswer, defineTool} from './tool.js'

/** The `max_output_tokens` argument, shared by exec_command and write_stdin. */
export const maxOutputTokensField = clampedNumberField(
  'max_output_tokens',
  `the budget for the answer's text in tokens (a number below 1 counts as 1, above ${MAX_OUTPUT_TOKENS} as ${MAX_OUTPUT_TOKENS})`,
  {minimum: 1, maximum: MAX_OUTPUT_TOKENS, default: DEFAULT_MAX_OUTPUT_TOKENS},
).describe(
    `Budget for the answer's text in tokens of ${CHARS_PER_TOKEN} characters (default ` +
      `${DEFAULT_MAX_OUTPUT_TOKENS}, 1 to ${MAX_OUTPUT_TOKENS}; values outside are clamped); longer output is cut in the middle.`,
  )

const inputSchema = z.object({
  cmd: textField('cmd', 'the shell command to run, e.g. "npm test"', {nonEmpty: true}).describe('Shell command to run, e.g. "npm test" or "ls -la | head". Sees what the login profile sets up.'),
  workdir: textField('workdir', 'the folder to run the command in, relative to the workspace')
    .optional()
    .describe('Folder to run it in, relative to the workspace (or absolute inside it). Default: the workspace root.'),
  yield_time_ms: clampedNumberField('yield_time_ms', `how long to wait for the command in ms, ${MIN_YIELD_TIME_MS} to ${MAX_YIELD_TIME_MS}`, {
    minimum: MIN_YIELD_TIME_MS,
    maximum: MAX_YIELD_TIME_MS,
    default: DEFAULT_EXEC_YIELD_TIME_MS,
  }).describe(
    `How long to wait for the command to end before answering that it still runs, in ms ` +
      `(${MIN_YIELD_TIME_MS}–${MAX_YIELD_TIME_MS}, default ${DEFAULT_EXEC_YIELD_TIME_MS}; values outside are clamped).`,
  ),
  max_output_tokens: maxOutputTokensField,
})

/**
/**
 * Fields of Codex's own `exec_command` that ak accepts and does not use, with why: a model trained
 * on Codex sends them, and refusing the call would cost it a retry (DESIGN §4.3).
 */
const IGNORED_CODEX_ARGUMENTS: Record<string, string> = {
  tty: 'commands run over pipes, never in a terminal',
  shell: 'ak chooses the shell, as the tool description says',
  login: 'ak chooses how the shell starts, as the tool description says',
}

/**
 * exec_command's description for a server whose commands run in `sandbox`: what happens to
 * background processes and what the sandbox allows differ by mode.
 */
function execCommandDescription(sandbox: SandboxPolicy): string {
  const background =
    sandbox.mode === 'off'
      ? 'Background processes (cmd &) keep running after the command ends, until the connection closes, but their ' +
        'later output is discarded: to follow a server, run it without & and poll it with write_stdin. '
      : 'To follow a server, run it without & and poll it with write_stdin. '
  return (
    "Runs a command in the user's shell ($SHELL if bash, zsh or another POSIX shell, else bash, else sh) with what its " +
    'login profile sets up (variables, PATH, aliases, functions), in the workspace or in workdir, ' +
    'over pipes (no terminal), with stdout and stderr merged in order and NO_COLOR=1, TERM=dumb, LANG=C.UTF-8, PAGER=cat. ' +
    `Answers as soon as the command ends, or after yield_time_ms (${MIN_YIELD_TIME_MS}–${MAX_YIELD_TIME_MS} ms, ` +
    `default ${DEFAULT_EXEC_YIELD_TIME_MS}) if it still runs; then it keeps running and the answer's session_id ` +
    'lets write_stdin read more output, type input, interrupt it ("\\u0003") or end its input ("\\u0004"). ' +
    'The answer has four fields in order: exit_code (a number; 128+n if killed by signal n; "running" while it runs), ' +
    'seconds (this call), session_id ("none" once ended), text (output since the last answer, cut in the middle ' +
    `past max_output_tokens × ${CHARS_PER_TOKEN} characters (Unicode code points), default ${DEFAULT_MAX_OUTPUT_TOKENS} tokens). ` +
    'A non-zero exit code is a normal answer, not an error. ' +
    `A command nobody polls for ${UNPOLLED_AFTER_MS / 1000} s keeps only ${UNPOLLED_OUTPUT_BUFFER_CHARS} characters of output until the next poll. ` +
    `At most ${MAX_RUNNING_COMMANDS} commands run at once; a command nobody polls for ` +
    `${COMMAND_IDLE_LIMIT_MS / 60_000} minutes is stopped, and all stop when the connection closes. ` +
    background +
    "Codex's tty, shell and login arguments are accepted and have no effect (a note on the first line of text says so). " +
    `${describeSandbox(sandbox)} ` +
    'Errors: workdir outside the workspace or not a folder; too many commands running (lists the caller\'s own; stateless requests get counts only).'
  )
}

/** The `exec_command` tool: runs a shell command (DESIGN §4.3–4.5; Codex's unified exec shape). */
export const execCommandTool = defineTool({
  name: 'exec_command',
  title: 'Run a shell command',
  description: execCommandDescription(NO_SANDBOX),
  descriptionFor: (runtime) => execCommandDescription(runtime.sandbox),
  level: 'terminal',
  inputSchema,
  ignoredArguments: IGNORED_CODEX_ARGUMENTS,
  outputSchema: commandAnswerSchema,
  annotations: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true},
  describeTarget: (input) => input.cmd.slice(0, COMMAND_PREVIEW_CHARS),
  async run(input, context) {
    const callStartedAt = performance.now()
    const {workspace, connection, signal} = context
    checkCommand(input.cmd)
    // Codex's sandbox for this call, if it sent one: the command runs in a sandbox no weaker.
    const codexSandbox = parseCodexSandboxState(context.meta)
    const sessions = commandSessionsFor(context)
    const session = await startInWorkdir(workspace, input.workdir, (cwd) => sessions.start(input.cmd, cwd, connection.id, codexSandbox))
    // Codex shows the model only structuredContent, so the note goes into the answer's text.
    const note = ignoredArgumentsNote({ignoredArguments: IGNORED_CODEX_ARGUMENTS}, context.ignoredArguments ?? [])
    const render = (answer: CommandAnswer): ToolAnswer => {
      if (note !== '') answer.text = `${note}\n${answer.text}`
      return {text: renderCommandAnswer(answer), structured: {...answer}}
    }
    const waitOptions = {yieldTimeMs: execYieldTimeMs(input.yield_time_ms), maxOutputTokens: maxOutputTokens(input.max_output_tokens), callStartedAt}
    try {
      if (context.task && !(await sessions.endsWithin(session, waitOptions.yieldTimeMs, signal)) && !signal.aborted) {
        const task = commandTask(sessions, session, waitOptions)
        if (context.task.start({...task, answer: task.answer.then(render)})) {
          // Replaced by the task's CreateTaskResult; the command's output stays for the task's answer.
          return render({exit_code: 'running', seconds: 0, session_id: session.id, text: ''})
        }
        task.release()
      }
      return render(await sessions.wait(session, {...waitOptions, signal}))
    } catch (error) {
      // Nobody learns the id of a command whose first answer is lost: stop it.
      if (!session.isRetired) await sessions.stop(session)
      if (signal?.aborted) {
        throw new BadInputError('The call was cancelled, so its command was stopped: nobody had its session_id. Call exec_command again to run it.')
      }
      throw error
    }
  },
})

/**
 * Runs `start` with the working directory for `workdir` (the workspace root when absent). The
 * folder is resolved, opened and verified inside the workspace, and on Linux the command starts
 * in that very folder through its descriptor (`/proc/self/fd/N`, which the child enters before it
 * runs the shell), so swapping the path meanwhile cannot move the command outside.
 * @throws BadInputError when `workdir` is a file; OutsideWorkspaceError, NotFoundError as resolve does.
 */
async function startInWorkdir<T>(workspace: Workspace, workdir: string | undefined, start: (cwd: string) => Promise<T>): Promise<T> {
  const target = workdir ? await workspace.resolve(workdir, {mustExist: true}) : undefined
  return withFolder(workspace, target?.real ?? workspace.rootBytes, workdir ?? '.', (folder) =>
    start(folder.self.toString()),
  )
}

/**
 * Refuses a command the system could not start, before starting anything.
 * @throws BadInputError for a NUL byte or a command longer than MAX_COMMAND_BYTES.
 */
function checkCommand(cmd: string): void {
  if (cmd.includes('\0')) {
    throw new BadInputError('cmd contains a NUL byte, which no command line can hold. Remove it (use printf \'\\0\' to produce one).')
  }
  const bytes = Buffer.byteLength(cmd)
  if (bytes > MAX_COMMAND_BYTES) {
    throw new BadInputError(
      `cmd is ${bytes} bytes; the system runs commands of at most ${MAX_COMMAND_BYTES} bytes. ` +
        'Write a long script to a file (with edit) and run that file.',
    )
  }
}

/**
 * The task a command becomes when it outlives its call's yield for a client with the MCP Tasks
 * extension (DESIGN §4.11): it follows the command (sessions.follow) without holding its turn, so
 * write_stdin still types into it under the same session_id, and answers once the command ends,
 * with the four fields as exec_command would (`seconds` counted from the call's start; the output
 * since the start or since the last write_stdin answer). Its status message names the session_id
 * and the command's last output line. `release` stops following (when the task is not started).
 */
function commandTask(
  sessions: CommandSessions,
  session: CommandSession,
  options: {maxOutputTokens: number; callStartedAt: number},
): Omit<ToolTask, 'answer'> & {answer: Promise<CommandAnswer>; release(): void} {
  const release = sessions.follow(session)
  const never = new AbortController().signal
  const answer = (async (): Promise<CommandAnswer> => {
    try {
      await Promise.race([session.ended, session.retired])
      return await sessions.wait(session, {...options, yieldTimeMs: 0, signal: never})
    } catch (error) {
      if (!(error instanceof NotFoundError) || session.exitCode === undefined) throw error
      // A write_stdin call reported the end first, with the output that was left.
      return {
        exit_code: session.exitCode,
        seconds: Math.round(performance.now() - options.callStartedAt) / 1000,
        session_id: NO_SESSION,
        text: `[session ${session.id} ended; its end and last output were reported to a write_stdin call]`,
      }
    } finally {
      release()
    }
  })()
  answer.catch(() => undefined) // the task reports it; unused when the task never starts
  return {
    answer,
    release,
    cancel: () => sessions.stop(session),
    statusMessage() {
      const head = `session_id ${session.id}: `
      // Cut here, not by the task store, so that the session_id stays when the line is long.
      return head + (boundedStatusMessage(session.lastOutputLine, TASK_STATUS_MESSAGE_CHARS - head.length) ?? 'running, no output yet')
    },
  }
}

import {z} from 'zod'

import {BadInputError} from '../../errors.js'
import {codePointCount} from '../code-points.js'
import {commandAnswerSchema, renderCommandAnswer} from '../terminal/answer.js'
import {
  DEFAULT_WRITE_STDIN_YIELD_TIME_MS,
  MAX_PENDING_STDIN_BYTES,
  MAX_YIELD_TIME_MS,
  MIN_EMPTY_POLL_YIELD_TIME_MS,
  MIN_YIELD_TIME_MS,
  maxOutputTokens,
  writeStdinYieldTimeMs,
} from '../terminal/limits.js'
import {commandSessionsFor} from '../terminal/runtime-sessions.js'
import {clampedNumberField, textField} from './input-fields.js'
import {maxOutputTokensField} from './exec-command.js'
import {defineTool} from './tool.js'

/** Typed as Ctrl-C: sends SIGINT to the command's process group. */
export const INTERRUPT_CHAR = '\u0003'
/** Typed as Ctrl-D: closes the command's stdin. */
export const END_OF_INPUT_CHAR = '\u0004'

/** One step of a `chars` string: text to write, an interrupt, or the end of input. */
export type StdinStep = {kind: 'text'; text: string} | {kind: 'interrupt'} | {kind: 'end-of-input'}

/** Splits `chars` into text and control steps, in order (`\u0003`, `\u0004` are steps). Pure. */
export function stdinSteps(chars: string): StdinStep[] {
  const steps: StdinStep[] = []
  for (const part of chars.split(/([\u0003\u0004])/)) {
    if (part === INTERRUPT_CHAR) steps.push({kind: 'interrupt'})
    else if (part === END_OF_INPUT_CHAR) steps.push({kind: 'end-of-input'})
    else if (part.length > 0) steps.push({kind: 'text', text: part})
  }
  return steps
}

/**
 * The first line of an answer whose `chars` were not all written: how many characters (code
 * points) were, why not the rest (the command's unread input reached MAX_PENDING_STDIN_BYTES
 * within the wait, or the command ended), and from which one to send again. Pure.
 */
export function unwrittenNote(written: number, total: number, hasEnded: boolean): string {
  const head = `[Note: ${written} of the ${total} characters of chars were written; the other ${total - written} were not`
  if (hasEnded) return `${head}, because the command ended first.]`
  return (
    `${head}, because the command did not read its input within yield_time_ms (at most ${MAX_PENDING_STDIN_BYTES} ` +
    `bytes of input a command has not read are held for it). Nothing after them was done; send the rest, from ` +
    `character ${written + 1} of chars on, in a later call once the command reads its input.]`
  )
}

const inputSchema = z.object({
  session_id: z
    .union([z.string(), z.number()], {error: 'session_id must be a string or a number: the session_id an earlier exec_command or write_stdin answer gave.'})
    .describe('The session_id an earlier exec_command or write_stdin answer gave.'),
  chars: textField('chars', 'the text to type into the command\'s stdin, "" to only wait for output')
    .optional()
    .describe('Text to type into the command\'s stdin (include "\\n" to end a line). "\\u0003" interrupts, "\\u0004" ends the input. Empty or absent: only wait for output.'),
  // No default in the schema: it depends on chars (the description gives both).
  yield_time_ms: clampedNumberField('yield_time_ms', `how long to wait for output in ms, up to ${MAX_YIELD_TIME_MS}`, {
    minimum: MIN_YIELD_TIME_MS,
    maximum: MAX_YIELD_TIME_MS,
  }).describe(
    `How long to wait for the command to end before answering, in ms: with chars ${MIN_YIELD_TIME_MS}–${MAX_YIELD_TIME_MS} ` +
      `(default ${DEFAULT_WRITE_STDIN_YIELD_TIME_MS}); without, ${MIN_EMPTY_POLL_YIELD_TIME_MS}–${MAX_YIELD_TIME_MS} ` +
      `(default ${MIN_EMPTY_POLL_YIELD_TIME_MS}). Values outside are clamped.`,
  ),
  max_output_tokens: maxOutputTokensField,
})

/** The `write_stdin` tool: types into a running command and reads its output (DESIGN §4.3–4.5). */
export const writeStdinTool = defineTool({
  name: 'write_stdin',
  title: 'Type into or poll a running command',
  description:
    'Writes chars to the stdin of a command that exec_command left running, then answers with its output since the ' +
    'last answer, in the same four fields as exec_command (exit_code, seconds, session_id, text). ' +
    '"\\u0003" in chars sends SIGINT to the command\'s process group (Ctrl-C); "\\u0004" closes its stdin (Ctrl-D); ' +
    'text around them is written in order. ' +
    `Answers as soon as the command ends, else after yield_time_ms: with chars ${MIN_YIELD_TIME_MS}–${MAX_YIELD_TIME_MS} ms ` +
    `(default ${DEFAULT_WRITE_STDIN_YIELD_TIME_MS}); without chars it only polls, ${MIN_EMPTY_POLL_YIELD_TIME_MS}–` +
    `${MAX_YIELD_TIME_MS} ms (default ${MIN_EMPTY_POLL_YIELD_TIME_MS}). ` +
    'The answer that reports the end (exit_code a number, session_id "none") retires the id. ' +
    `A command holds at most ${MAX_PENDING_STDIN_BYTES} bytes of input it has not read: past that the call waits ` +
    'up to yield_time_ms for it to read more, then text starts with a note saying how many characters of chars were ' +
    'written, so the rest can be sent later. ' +
    'Errors: unknown or retired session_id; text after the input was closed.',
  level: 'terminal',
  inputSchema,
  outputSchema: commandAnswerSchema,
  annotations: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true},
  describeTarget: (input) => `session ${input.session_id}${input.chars ? ` chars ${JSON.stringify(input.chars).slice(0, 40)}` : ''}`,
  async run(input, context) {
    const callStartedAt = performance.now()
    const sessions = commandSessionsFor(context)
    const session = sessions.find(input.session_id, context.connection.id)
    const chars = input.chars ?? ''
    const steps = stdinSteps(chars)
    let written = 0
    const firstEnd = steps.findIndex((step) => step.kind === 'end-of-input')
    const writesText = (from: number) => steps.slice(from).some((step) => step.kind === 'text')
    if (session.isStdinClosed && writesText(0)) {
      throw new BadInputError(
        `The input of session ${session.id} is closed ("\\u0004" ended it), so text cannot be written after it. ` +
          'Poll without chars, interrupt with "\\u0003", or start a new command.',
      )
    }
    if (firstEnd !== -1 && writesText(firstEnd + 1)) {
      throw new BadInputError(
        `chars has text after "\\u0004", which would close the input of session ${session.id} first; nothing was written ` +
          'and the input stays open. Send the text before "\\u0004", or in a call of its own.',
      )
    }
    const answer = await sessions.wait(
      session,
      {
        yieldTimeMs: writeStdinYieldTimeMs(input.yield_time_ms, chars.length > 0),
        maxOutputTokens: maxOutputTokens(input.max_output_tokens),
        callStartedAt,
        signal: context.signal,
      },
      async (until) => {
        for (const step of steps) {
          if (step.kind === 'text') {
            const taken = await session.write(step.text, until)
            written += taken
            if (taken < codePointCount(step.text)) return // the rest waits for a later call
          } else {
            if (step.kind === 'interrupt') session.interrupt()
            else if (!session.isStdinClosed) session.closeStdin()
            written++
          }
        }
      },
    )
    const total = codePointCount(chars)
    // Codex shows the model only structuredContent, so the note goes into the answer's text.
    if (written < total) answer.text = `${unwrittenNote(written, total, answer.exit_code !== 'running')}\n${answer.text}`
    return {text: renderCommandAnswer(answer), structured: {...answer}}
  },
})

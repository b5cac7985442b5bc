import {z} from 'zod'

import {codePointCount, offsetAfterCodePoints, offsetBeforeLastCodePoints} from '../code-points.js'
import {CHARS_PER_TOKEN} from './limits.js'
import {type BufferedOutput, countLineBreaks, outputChars} from './output-buffer.js'

/**
 * The answer of `exec_command` and `write_stdin` (DESIGN §4.4): always these four fields, in
 * this order.
 */
export interface CommandAnswer {
  /** The exit code; 128 + n for a command killed by signal n; `running` while it runs. */
  exit_code: number | 'running'
  /** This call's wall time in seconds, rounded to three decimals. */
  seconds: number
  /** The id to pass to `write_stdin` while the command runs; `none` once it has ended. */
  session_id: string
  /** The output since the previous answer, cut in the middle past the call's budget. */
  text: string
}

/** The `outputSchema` both terminal tools declare; `structuredContent` follows it. */
export const commandAnswerSchema = z.object({
  exit_code: z
    .union([z.number().int(), z.literal('running')])
    .describe('Exit code (128 + n when killed by signal n), or "running" while the command runs.'),
  seconds: z.number().describe("This call's wall time in seconds, three decimals."),
  session_id: z.string().describe('Session id for write_stdin while the command runs; "none" once it has ended.'),
  text: z.string().describe('Output (stdout and stderr merged) since the previous answer, cut in the middle when long.'),
})

/** The session id value of an answer whose command has ended. */
export const NO_SESSION = 'none'

/**
 * The marker that replaces the middle of a long output. It says how much was cut and how to see
 * everything, because the model reading it cannot ask for the cut part afterwards.
 */
export function cutMarker(cutChars: number, cutLines: number, totalChars: number): string {
  return (
    `\n[... ${cutChars} characters (${cutLines} line breaks) cut from the middle of ${totalChars}; ` +
    `to see all of it, redirect the output to a file and read the file ...]\n`
  )
}

/**
 * The output as the answer's `text`: whole when it fits in `budgetChars`, otherwise its first and
 * last `budgetChars / 2` characters around `cutMarker` (cut in the middle, like Codex's
 * `formatted_truncate_text`, with ak's marker). Characters are Unicode code points, as `read`
 * counts them; a surrogate pair is never split. Pure.
 */
export function cutMiddle(output: BufferedOutput, budgetChars: number): string {
  const total = outputChars(output)
  const headBudget = Math.floor(budgetChars / 2)
  const tailBudget = budgetChars - headBudget
  if (output.droppedChars === 0) {
    const whole = output.head + output.tail
    if (whole.length <= budgetChars || total <= budgetChars) return whole
    const headEnd = offsetAfterCodePoints(whole, headBudget)
    const tailStart = offsetBeforeLastCodePoints(whole, tailBudget)
    const cutLines = countLineBreaks(whole, headEnd, tailStart)
    return whole.slice(0, headEnd) + cutMarker(total - headBudget - tailBudget, cutLines, total) + whole.slice(tailStart)
  }
  const headEnd = offsetAfterCodePoints(output.head, headBudget)
  const tailStart = offsetBeforeLastCodePoints(output.tail, tailBudget)
  const head = output.head.slice(0, headEnd)
  const tail = output.tail.slice(tailStart)
  const cutLines = countLineBreaks(output.head, headEnd) + output.droppedLines + countLineBreaks(output.tail, 0, tailStart)
  return head + cutMarker(total - codePointCount(head) - codePointCount(tail), cutLines, total) + tail
}

/**
 * Builds the answer of one call.
 * @param elapsedMs the call's wall time in ms
 * @param maxOutputTokens the call's budget in tokens (CHARS_PER_TOKEN characters each), already clamped
 */
export function commandAnswer(options: {
  exitCode: number | 'running'
  elapsedMs: number
  sessionId: string
  output: BufferedOutput
  maxOutputTokens: number
}): CommandAnswer {
  return {
    exit_code: options.exitCode,
    seconds: Math.round(options.elapsedMs) / 1000,
    session_id: options.sessionId,
    text: cutMiddle(options.output, options.maxOutputTokens * CHARS_PER_TOKEN),
  }
}

/** The answer as the tool's text content: the four fields in order, `text` last and verbatim. */
export function renderCommandAnswer(answer: CommandAnswer): string {
  return (
    `exit_code: ${answer.exit_code}\n` +
    `seconds: ${answer.seconds.toFixed(3)}\n` +
    `session_id: ${answer.session_id}\n` +
    `text:\n${answer.text}`
  )
}

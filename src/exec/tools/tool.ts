import type {ToolAnnotations} from '@modelcontextprotocol/server'
import type {z} from 'zod'

import type {Level} from '../level.js'
import type {ExecRuntime, ToolContext} from '../context.js'
import type {Workspace} from '../workspace.js'

/** A tool's successful answer. */
export interface ToolAnswer {
  /** The text content the model reads. */
  text: string
  /** `structuredContent`, for tools that declare an output schema. */
  structured?: Record<string, unknown>
  /** Images sent as MCP image content after the text (`read` of an image file). */
  images?: Array<{
    /** The image file's bytes, base64-encoded. */
    data: string
    mimeType: string
  }>
}

/**
 * One AgentExec tool: its MCP definition and its implementation. The same object serves stdio,
 * HTTP and library mode. Failures are thrown as the errors of src/errors.ts and become MCP
 * `isError` results in one place (src/exec/serving/server.ts).
 */
export interface ExecTool<Input extends z.ZodObject = z.ZodObject> {
  name: string
  title: string
  /** Precise description: what, units, limits, what error to expect. */
  description: string
  /** The description a server with these settings lists (e.g. naming the sandbox), when it depends on them. */
  descriptionFor?(runtime: ExecRuntime): string
  /** The lowest level that offers this tool. */
  level: Level
  inputSchema: Input
  /**
   * Argument names the tool accepts and ignores, each with why it has no effect (Codex's
   * `exec_command` fields ak does not use). Any other name outside `inputSchema` is refused.
   */
  ignoredArguments?: Record<string, string>
  /** Advice for argument names other servers use and this tool does not (`tail` → a negative offset). */
  argumentHints?: Record<string, string>
  /** The schema of the answer's `structured` form, declared as the tool's MCP `outputSchema`. */
  outputSchema?: z.ZodObject
  /**
   * Whether the text is the answer and `structured` restates it as fields for programs (read,
   * list, search, edit), rather than being the answer's designed form (the terminal tools' four
   * fields, DESIGN §4.4). A client that shows its model a result's `structuredContent` instead of
   * its text (see `TEXT_FIRST_CLIENTS`) gets such a tool without its output schema and its answers
   * without `structuredContent`, so that its model reads the same text as every other.
   */
  isTextTheAnswer?: boolean
  annotations: ToolAnnotations
  /** A short description of the call's target for the operator log (a path or a command). */
  describeTarget(input: z.infer<Input>): string
  run(input: z.infer<Input>, context: ToolContext): Promise<ToolAnswer>
}

/** Identity helper that keeps the input type of a tool definition. */
export function defineTool<Input extends z.ZodObject>(tool: ExecTool<Input>): ExecTool<Input> {
  return tool
}

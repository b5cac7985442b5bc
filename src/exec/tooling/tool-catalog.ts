import type {Tool} from '@modelcontextprotocol/client'

import {silentLogger} from '../../log.js'
import {connectInProcessExecClient} from '../serving/in-process-client.js'
import type {Level} from '../level.js'
import {createExecRuntime} from '../runtime.js'
import {levelOfTool} from '../tools/index.js'
import type {Workspace} from '../workspace.js'

/**
 * The MCP tool definitions (name, title, description, input and output JSON Schemas, annotations)
 * an AgentExec server at `level` lists, read through `tools/list` from a real server instance, so
 * they are exactly what a client receives. Nothing is called and nothing is started; `workspace`
 * only fills the server's instructions.
 */
export async function listExecToolDefinitions(level: Level, workspace: Workspace): Promise<Tool[]> {
  const runtime = createExecRuntime({workspace, level, log: silentLogger})
  const client = await connectInProcessExecClient(runtime)
  try {
    return await client.listTools()
  } finally {
    await client.close()
    await runtime.close()
  }
}

/**
 * Renders tool definitions for people: per tool its name, title and lowest level, the
 * description, and one line per argument (`name: type, required|optional, default …`) read from
 * the input JSON Schema. Pure.
 */
export function formatToolCatalog(level: Level, tools: readonly Tool[]): string {
  const lines = [`AgentExec tools at level ${level} (${tools.length}):`]
  for (const tool of tools) {
    const since = levelOfTool(tool.name)
    lines.push('', `${tool.name} — ${tool.title ?? tool.name}${since ? ` (from level ${since})` : ''}`)
    lines.push(...wrap(tool.description ?? '', CATALOG_WIDTH - 2).map((line) => `  ${line}`))
    const args = describeArguments(tool.inputSchema)
    lines.push(args.length > 0 ? '  arguments:' : '  arguments: none')
    lines.push(...args.map((line) => `    ${line}`))
    if (tool.annotations?.readOnlyHint) lines.push('  read-only')
  }
  return lines.join('\n')
}

interface JsonSchemaProperty {
  type?: string | string[]
  description?: string
  default?: unknown
  enum?: unknown[]
  items?: JsonSchemaProperty
  anyOf?: JsonSchemaProperty[]
}

function describeArguments(schema: Tool['inputSchema']): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchemaProperty>
  const required = new Set(schema.required ?? [])
  return Object.entries(properties).map(([name, property]) => {
    const parts = [typeOf(property), required.has(name) ? 'required' : 'optional']
    if (property.default !== undefined) parts.push(`default ${JSON.stringify(property.default)}`)
    const description = property.description ? ` — ${property.description}` : ''
    return `${name}: ${parts.join(', ')}${description}`
  })
}

function typeOf(property: JsonSchemaProperty): string {
  if (property.anyOf) return property.anyOf.map(typeOf).join(' | ')
  if (property.enum) return property.enum.map((value) => JSON.stringify(value)).join(' | ')
  const type = Array.isArray(property.type) ? property.type.join(' | ') : (property.type ?? 'any')
  if (type === 'array' && property.items) return `array of ${typeOf(property.items)}`
  return type
}

/** Column width descriptions are wrapped to in the text catalog, in characters. */
const CATALOG_WIDTH = 100

/** Word-wraps each paragraph of `text` to `width` characters (a longer word stays whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    let line = ''
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line)
        line = word
      } else {
        line = line ? `${line} ${word}` : word
      }
    }
    lines.push(line)
  }
  return lines
}

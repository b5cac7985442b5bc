/**
 * A tap on a stdio MCP connection: a small Node program a client starts in place of the server,
 * which starts the server itself, passes every line both ways unchanged, and appends each to a
 * JSON Lines file (`{"from": "client" | "server", "message": ...}`). Tests read what a client
 * such as Claude Code really sent and got.
 */
import {readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'

const TAP_SOURCE = `
import {spawn} from 'node:child_process'
import {appendFileSync} from 'node:fs'
import readline from 'node:readline'
const [log, command, ...args] = process.argv.slice(2)
const child = spawn(command, args, {stdio: ['pipe', 'pipe', 'inherit']})
const record = (from, line) => {
  let message
  try { message = JSON.parse(line) } catch { message = line }
  appendFileSync(log, JSON.stringify({from, message}) + '\\n')
}
readline.createInterface({input: process.stdin}).on('line', (line) => { record('client', line); child.stdin.write(line + '\\n') })
process.stdin.on('end', () => child.stdin.end())
child.stdin.on('error', () => {})
readline.createInterface({input: child.stdout}).on('line', (line) => { record('server', line); process.stdout.write(line + '\\n') })
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
`

/** One JSON-RPC message the tap saw. */
export interface TappedMessage {
  from: 'client' | 'server'
  message: {id?: number | string; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: unknown}
}

/** A tap written into a folder: the command line to give the client, and what it recorded. */
export interface McpTap {
  /** The command and arguments to configure as the MCP server: the tap, then `server`. */
  command: string
  args: string[]
  /** Every message recorded so far, in order. */
  messages(): Promise<TappedMessage[]>
}

/** Writes a tap into `dir` that runs `server` (a command and its arguments). */
export async function writeMcpTap(dir: string, server: string[]): Promise<McpTap> {
  const script = path.join(dir, 'mcp-tap.mjs')
  const log = path.join(dir, 'mcp-tap.jsonl')
  await writeFile(script, TAP_SOURCE)
  await writeFile(log, '')
  return {
    command: process.execPath,
    args: [script, log, ...server],
    async messages() {
      const text = await readFile(log, 'utf8')
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as TappedMessage)
    },
  }
}

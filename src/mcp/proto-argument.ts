/**
 * A tool call's arguments may hold a member named `"__proto__"`. The MCP SDK checks messages
 * with zod schemas that drop such a member without a word, so a tool would never see it and the
 * call would pass where every other unknown argument is refused (DESIGN §4.3). ak renames it,
 * as the message is read and before the SDK sees it, to PROTO_ARGUMENT, which parseToolInput
 * refuses as the unknown argument `__proto__`.
 */

/** The name a `"__proto__"` argument travels under inside ak; no client can send it (it holds a NUL). */
export const PROTO_ARGUMENT = '\u0000__proto__'

/**
 * Renames an own `"__proto__"` member of `params.arguments` in every `tools/call` request of
 * `message` (one JSON-RPC message or a batch, as JSON.parse returned it) to PROTO_ARGUMENT, in
 * place. Anything else is left as it is.
 * @returns `message`
 */
export function keepProtoArguments<T>(message: T): T {
  for (const item of Array.isArray(message) ? (message as unknown[]) : [message]) {
    if (!isObject(item) || item.method !== 'tools/call' || !isObject(item.params)) continue
    const args = item.params.arguments
    if (!isObject(args) || !Object.hasOwn(args, '__proto__')) continue
    const value = Object.getOwnPropertyDescriptor(args, '__proto__')?.value as unknown
    delete args.__proto__
    args[PROTO_ARGUMENT] = value
  }
  return message
}

/** A JSON text's `tools/call` requests with `"__proto__"` arguments renamed (see keepProtoArguments); undefined when it needs no change. */
export function keepProtoArgumentsInText(text: string): string | undefined {
  if (!text.includes('__proto__')) return undefined
  try {
    return JSON.stringify(keepProtoArguments(JSON.parse(text) as unknown))
  } catch {
    return undefined // not JSON: the SDK answers that
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

import {SLUG_MAX_CHARS} from './limits.js'

const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]*$/

/**
 * True when `slug` is a valid agent slug: `[a-z0-9][a-z0-9_-]*`, at most SLUG_MAX_CHARS (40)
 * characters (DESIGN §5.2), so the tool `agent_<slug>` fits a client's 64-character tool names.
 */
export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX_CHARS && SLUG_PATTERN.test(slug)
}

/** The slug of an agent file name (`reviewer.toml` → `reviewer`), or undefined when the name is not a valid agent file name. */
export function slugOfFileName(fileName: string): string | undefined {
  if (!fileName.endsWith('.toml')) return undefined
  const slug = fileName.slice(0, -'.toml'.length)
  return isValidSlug(slug) ? slug : undefined
}

/** The MCP tool name that serves the agent `slug`. */
export function toolNameOf(slug: string): string {
  return `agent_${slug}`
}

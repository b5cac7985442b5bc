/**
 * Writes TOML values on one line (strings, numbers, booleans, arrays, inline tables), as Codex's
 * `-c key=value` overrides and config.toml entries need them. Codex parses an override's value as
 * TOML (falling back to a literal string), so every value here is written as valid TOML to keep
 * that fallback from ever applying.
 */

const BARE_KEY = /^[A-Za-z0-9_-]+$/

/** A TOML basic string: JSON's escaping is valid TOML, except that DEL must be escaped too. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\u007f/g, '\\u007f')
}

/** A TOML key: bare when it can be, quoted otherwise. */
export function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : tomlString(key)
}

/**
 * One TOML value on one line. Objects become inline tables, dates their ISO text.
 * Non-finite numbers are written as TOML's inf/nan.
 * @throws TypeError for values TOML cannot hold (undefined, null, functions, symbols).
 */
export function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value)
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan'
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf'
    return Number.isSafeInteger(value) ? value.toFixed(0) : String(value)
  }
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`
  // smol-toml's TomlDate writes the document's own form (local date, time, offset date-time).
  if (value instanceof Date) return value.toISOString()
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
    if (entries.length === 0) return '{}'
    return `{${entries.map(([key, item]) => `${tomlKey(key)} = ${tomlValue(item)}`).join(', ')}}`
  }
  throw new TypeError(`TOML cannot hold the value ${String(value)}`)
}

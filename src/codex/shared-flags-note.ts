/**
 * The one-line stderr note for shared flags (--json, --quiet, --yes, --no-interactive) given to a
 * command they do not change, or undefined when none was given.
 */
export function ignoredSharedFlagsNote(
  flags: {json?: boolean; quiet?: boolean; yes?: boolean; 'no-interactive'?: boolean},
  what: string,
): string | undefined {
  const given = (['json', 'quiet', 'yes', 'no-interactive'] as const).filter((name) => flags[name]).map((name) => `--${name}`)
  if (given.length === 0) return undefined
  return `${given.join(', ')} ${given.length === 1 ? 'does' : 'do'} not change ${what}; ignored.`
}

/**
 * The refusal of a flag given twice, one wording for every ak command and for `agentexec`. A
 * repeated flag is never "last one wins": `--level read --level terminal` would silently serve
 * more than the first value asked for, so every parser refuses it (exit code 2).
 * @param flag the flag as its long form, `--level`
 * @param program the command as typed, `ak exec serve`
 */
export function repeatedFlagMessage(flag: string, program: string): string {
  return `Flag ${flag} can only be given once for "${program}": a second value would replace the first. Give it once, with the value you mean.`
}

/**
 * The first flag `names` holds twice, in the order typed, or undefined.
 * @param names the long names of the flags as parsed, one entry per occurrence
 * @param repeatable names that may be given several times (oclif `multiple` flags)
 */
export function firstRepeated(names: readonly string[], repeatable: ReadonlySet<string> = new Set()): string | undefined {
  const seen = new Set<string>()
  for (const name of names) {
    if (repeatable.has(name)) continue
    if (seen.has(name)) return name
    seen.add(name)
  }
  return undefined
}

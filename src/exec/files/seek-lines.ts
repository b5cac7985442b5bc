/**
 * Where a patch hunk's lines lie in a file: the context matcher of `edit`'s patch form. It finds
 * a run of lines as Codex's apply-patch does (codex-rs/apply-patch/src/seek_sequence.rs), so a
 * patch a model wrote for Codex lands on the same lines here. Four passes, each over every
 * place from the start, each more lenient than the one before; the first place found wins:
 *
 * 1. the lines exactly;
 * 2. ignoring whitespace at the end of each line;
 * 3. ignoring whitespace at both ends of each line;
 * 4. as 3, with typographic dashes, quotes and odd spaces read as their ASCII forms.
 *
 * A line here never holds its line break (the caller splits the text and drops `\r` before a
 * `\n`), so a CRLF file matches a patch written with LF in the first pass.
 */

/** Dashes and hyphens read as `-`. */
const DASHES = /[\u2010-\u2015\u2212]/g
/** Typographic single quotes read as `'`. */
const SINGLE_QUOTES = /[\u2018-\u201B]/g
/** Typographic double quotes read as `"`. */
const DOUBLE_QUOTES = /[\u201C-\u201F]/g
/** No-break and other fixed-width spaces read as a space. */
const ODD_SPACES = /[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g

/** A line with its surrounding whitespace removed and typographic punctuation made ASCII (pass 4). */
export function normalisePunctuation(line: string): string {
  return line.trim().replace(DASHES, '-').replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(ODD_SPACES, ' ')
}

const trimEnd = (line: string) => line.trimEnd()
const trimBoth = (line: string) => line.trim()

/** The ways of comparing two lines, strictest first. */
const PASSES: ReadonlyArray<((line: string) => string) | undefined> = [undefined, trimEnd, trimBoth, normalisePunctuation]

/**
 * The index in `lines` where `pattern` starts, searching from `start`, or undefined when it is
 * nowhere. With `isEndOfFile` (the hunk ends in `*** End of File`), the only place tried is the
 * one that ends at the last line, as Codex does.
 *
 * An empty pattern matches at `start`; a pattern longer than the file matches nowhere.
 * Each pass compares a line at most once per place; forms of the file's lines are computed once
 * per pass, when that pass is reached.
 */
export function seekLines(lines: readonly string[], pattern: readonly string[], start: number, isEndOfFile: boolean): number | undefined {
  if (pattern.length === 0) return start
  if (pattern.length > lines.length) return undefined
  const last = lines.length - pattern.length
  const from = isEndOfFile ? last : start
  for (const form of PASSES) {
    const wanted = form ? pattern.map(form) : pattern
    const forms: Array<string | undefined> = form ? new Array<string | undefined>(lines.length) : []
    const formOf = (index: number): string => {
      if (!form) return lines[index] as string
      return (forms[index] ??= form(lines[index] as string))
    }
    for (let at = from; at <= last; at++) {
      let isMatch = true
      for (let offset = 0; offset < wanted.length; offset++) {
        if (formOf(at + offset) !== wanted[offset]) {
          isMatch = false
          break
        }
      }
      if (isMatch) return at
    }
  }
  return undefined
}

import {type AST, RegExpParser} from '@eslint-community/regexpp'

import type {ScanQuery} from './scanner.js'

type Alternative = AST.Alternative
type Element = AST.Element
type Node = AST.Node

/** The shortest required literal worth a prefilter (characters): one shorter occurs in nearly every file. */
export const MIN_PREFILTER_CHARS = 3

/** Alternatives a prefilter looks for at most: past that, searching the file for each costs more than it saves. */
const MAX_PREFILTER_LITERALS = 8

/**
 * Literals of which every match of a regex must contain at least one, for skipping a file whose
 * bytes hold none of them without decoding it (`Buffer.indexOf` of each, see scanner.ts); or
 * undefined when no such set can be told, so every file is scanned.
 *
 * Conservative by construction: the pattern is parsed by a real ECMAScript regex parser
 * (`@eslint-community/regexpp`, with the same `u` flag), and only characters that a match must
 * contain in order are taken: runs of plain characters in a sequence, the body of a group or of a
 * quantifier that repeats at least once, and the union over every alternative of an alternation
 * when each alternative has literals of its own. No prefilter at all for a pattern that is
 * case-insensitive (`i`, or a group with modifiers), that has a lookaround, a backreference, a
 * Unicode property or set-notation class, or that does not parse; nor when the best set has a
 * literal shorter than MIN_PREFILTER_CHARS or more than MAX_PREFILTER_LITERALS literals.
 *
 * A character that decoding can produce from other bytes breaks a run: U+FFFD (what malformed
 * UTF-8 decodes to) and lone surrogates (a non-`u` pattern's halves of a character above U+FFFF).
 * Every other character of the decoded text comes from exactly its UTF-8 bytes, so a file whose
 * bytes lack a literal has no line holding it.
 * @param source the regex source, as compiled (see `compileQuery`).
 * @param flags its flags: `u` and `i` are read, the scanner adds `g` and `m`.
 */
export function requiredLiterals(source: string, flags: string): string[] | undefined {
  if (flags.includes('i')) return undefined
  let pattern
  try {
    pattern = new RegExpParser({ecmaVersion: 2025}).parsePattern(source, 0, source.length, {unicode: flags.includes('u')})
  } catch {
    return undefined
  }
  if (hasUnsupported(pattern)) return undefined
  const literals = ofDisjunction(pattern.alternatives)
  if (!literals || literals.length > MAX_PREFILTER_LITERALS || literals.some((literal) => [...literal].length < MIN_PREFILTER_CHARS)) return undefined
  return literals
}

/** `query` with the literals its regex requires (see `requiredLiterals`), when there are any. */
export function withPrefilter(query: ScanQuery): ScanQuery {
  if (query.kind !== 'regex') return query
  const required = requiredLiterals(query.source, query.flags)
  return required ? {...query, required} : query
}

/** Whether the tree holds anything whose matches plain literals cannot describe (see `requiredLiterals`). */
function hasUnsupported(node: Node): boolean {
  switch (node.type) {
    case 'Pattern':
    case 'CapturingGroup':
      return node.alternatives.some(hasUnsupported)
    case 'Group':
      return node.modifiers !== null || node.alternatives.some(hasUnsupported)
    case 'Alternative':
      return node.elements.some(hasUnsupported)
    case 'Quantifier':
      return hasUnsupported(node.element)
    case 'Assertion':
      return node.kind === 'lookahead' || node.kind === 'lookbehind'
    case 'Backreference':
      return true
    case 'CharacterSet':
      return node.kind === 'property'
    case 'CharacterClass':
      return node.unicodeSets || node.elements.some(hasUnsupported)
    case 'CharacterClassRange':
    case 'Character':
      return false
    default:
      return true
  }
}

/** Literals one of which every match of some alternative contains, or undefined when an alternative has none. */
function ofDisjunction(alternatives: Alternative[]): string[] | undefined {
  const union = new Set<string>()
  for (const alternative of alternatives) {
    const literals = ofSequence(alternative.elements)
    if (!literals) return undefined
    for (const literal of literals) union.add(literal)
  }
  return [...union]
}

/**
 * The best set of literals every match of the sequence `elements` contains: runs of plain
 * characters, or what a group or a repeated element requires; the set whose shortest literal
 * is longest wins.
 */
function ofSequence(elements: Element[]): string[] | undefined {
  let best: string[] | undefined
  const consider = (candidate: string[] | undefined): void => {
    if (candidate && candidate.length > 0 && (!best || score(candidate) > score(best))) best = candidate
  }
  let run = ''
  for (const element of elements) {
    if (element.type === 'Character' && isExactCharacter(element.value)) {
      run += String.fromCodePoint(element.value)
      continue
    }
    if (run !== '') consider([run])
    run = ''
    consider(ofElement(element))
  }
  if (run !== '') consider([run])
  return best
}

/** What one element of a sequence requires, or undefined. */
function ofElement(element: Element): string[] | undefined {
  switch (element.type) {
    case 'Group':
    case 'CapturingGroup':
      return ofDisjunction(element.alternatives)
    case 'Quantifier':
      if (element.min < 1) return undefined
      if (element.element.type === 'Character') return isExactCharacter(element.element.value) ? [String.fromCodePoint(element.element.value)] : undefined
      return ofElement(element.element)
    default:
      return undefined
  }
}

/** A set's worth: the length of its shortest literal, then fewer literals first. */
function score(literals: string[]): number {
  return Math.min(...literals.map((literal) => literal.length)) * 100 - literals.length
}

/** Whether the decoded text holds `code` only where the file's bytes hold its UTF-8 form. */
function isExactCharacter(code: number): boolean {
  return code !== 0xfffd && !(code >= 0xd800 && code <= 0xdfff)
}

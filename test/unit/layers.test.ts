import {expect} from 'chai'
import {readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'

import {REPO_ROOT} from '../helpers/clients.js'

const SRC = path.join(REPO_ROOT, 'src')

/** Every .ts file under `dir`, relative to src/. */
function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(SRC, dir), {recursive: true, encoding: 'utf8'})
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(dir, file))
}

/** The src/ folders (first path segment, or the file name at the top) that `file` imports from. */
function importedParts(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8')
  return [...text.matchAll(/^(?:import|export)\b[^'"]*?from '(\.[^']+)'/gm)].map((match) => {
    const target = path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), match[1]!))
    return target.split(path.sep)[0]!.replace(/\.js$/, '')
  })
}

describe('layers of the source tree', () => {
  const cases: Array<[string, string[]]> = [
    ['codex', ['exec', 'commands', 'doctor']],
    ['exec', ['codex', 'commands', 'doctor']],
    ['mcp', ['exec', 'codex', 'commands', 'doctor', 'launch']],
    ['launch', ['exec', 'codex', 'commands', 'doctor', 'mcp']],
  ]
  for (const [folder, forbidden] of cases) {
    it(`keeps src/${folder} from importing ${forbidden.map((part) => `src/${part}`).join(', ')}`, () => {
      const offending = sourceFiles(folder).flatMap((file) => importedParts(file).filter((part) => forbidden.includes(part)).map((part) => `${file} → ${part}`))
      expect(offending).to.deep.equal([])
    })
  }

  it('imports how ak is launched from its own module, not from an entry file', () => {
    const offending = sourceFiles('.').filter((file) => importedParts(file).includes('ak-entry'))
    expect(offending).to.deep.equal([])
  })
})

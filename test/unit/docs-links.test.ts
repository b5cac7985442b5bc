import {expect} from 'chai'
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'

import {REPO_ROOT} from '../helpers/clients.js'

/** The Markdown files a reader reaches from the README: the README and every file in docs/. */
function documents(): string[] {
  const docs = readdirSync(path.join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md'))
  return ['README.md', ...docs.map((name) => path.join('docs', name))]
}

/** The text of a Markdown file with its fenced code blocks blanked out, so code is not read as links. */
function prose(file: string): string {
  return readFileSync(path.join(REPO_ROOT, file), 'utf8').replaceAll(/^```[\s\S]*?^```/gm, '')
}

/**
 * The anchors GitHub gives a file's headings: lower case, punctuation other than `-` and `_`
 * dropped, spaces turned into `-` (github.com's heading slugs; a repeated heading gets `-1`, `-2`).
 */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  for (const match of prose(file).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const slug = (match[1] ?? '').toLowerCase().replaceAll(/[^\p{L}\p{N} _-]/gu, '').replaceAll(' ', '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    result.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return result
}

describe('the README and docs/', () => {
  it('link only to files and headings that exist', () => {
    const broken: string[] = []
    let checked = 0
    for (const file of documents()) {
      for (const match of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? ''
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
        checked++
        const [filePart, anchor] = target.split('#') as [string, string | undefined]
        const resolved = filePart === '' ? file : path.join(path.dirname(file), filePart)
        const absolute = path.join(REPO_ROOT, resolved)
        if (!existsSync(absolute)) broken.push(`${file}: ${target} (no such file)`)
        else if (anchor !== undefined && !(statSync(absolute).isFile() && anchors(resolved).has(anchor))) {
          broken.push(`${file}: ${target} (no such heading)`)
        }
      }
    }
    expect(broken).to.deep.equal([])
    expect(checked, 'relative links found').to.be.greaterThan(10)
  })

  it('link every file in docs/ from the README', () => {
    const readme = prose('README.md')
    const unlinked = documents().slice(1).filter((file) => !readme.includes(`](${file})`))
    expect(unlinked).to.deep.equal([])
  })
})

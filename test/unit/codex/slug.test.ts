import {expect} from 'chai'

import {SLUG_MAX_CHARS} from '../../../src/codex/limits.js'
import {isValidSlug, slugOfFileName, toolNameOf} from '../../../src/codex/slug.js'

describe('agent slugs', () => {
  it('accepts lowercase letters, digits, _ and - after a first letter or digit', () => {
    for (const slug of ['reviewer', 'a', '7', 'fix-tests', 'py_lint', '0-x_y']) expect(isValidSlug(slug), slug).to.equal(true)
  })

  it('refuses a slug that starts with - or _, holds capitals, dots or spaces, or is empty', () => {
    for (const slug of ['', '-dash', '_under', 'Upper', 'my.agent', 'two words', 'é']) expect(isValidSlug(slug), slug).to.equal(false)
  })

  it('refuses anything after the valid part, not only at the start', () => {
    expect(isValidSlug('my.agent.toml')).to.equal(false)
    expect(isValidSlug('agent!')).to.equal(false)
    expect(isValidSlug('agent\n')).to.equal(false)
  })

  it('accepts exactly SLUG_MAX_CHARS characters and refuses one more', () => {
    expect(isValidSlug('a'.repeat(SLUG_MAX_CHARS))).to.equal(true)
    expect(isValidSlug('a'.repeat(SLUG_MAX_CHARS + 1))).to.equal(false)
  })

  it('takes the slug of an agent file from a name ending in .toml', () => {
    expect(slugOfFileName('reviewer.toml')).to.equal('reviewer')
    expect(slugOfFileName('my.agent.toml')).to.equal(undefined)
    expect(slugOfFileName('Reviewer.toml')).to.equal(undefined)
  })

  it('ignores a file whose name does not end in .toml, even when the rest is a valid slug', () => {
    expect(slugOfFileName('reviewer')).to.equal(undefined)
    expect(slugOfFileName('notes.txt')).to.equal(undefined)
    expect(slugOfFileName('reviewer.tom')).to.equal(undefined)
  })

  it('serves the agent as the tool agent_<slug>', () => {
    expect(toolNameOf('reviewer')).to.equal('agent_reviewer')
  })
})

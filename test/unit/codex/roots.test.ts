import {expect} from 'chai'

import {resolveRoots} from '../../../src/codex/roots.js'
import {BadInputError} from '../../../src/errors.js'

describe('codex home and plugin root', () => {
  const options = {homeDir: '/home/me', cwd: '/work'}

  it('defaults to ~/.codex and ~/.claude/plugins', () => {
    expect(resolveRoots({}, {...options, env: {}})).to.deep.equal({codexHome: '/home/me/.codex', pluginRoot: '/home/me/.claude/plugins'})
  })

  it('takes $CODEX_HOME and $AGENTKIT_PLUGIN_DIR next, ignoring empty ones', () => {
    expect(resolveRoots({}, {...options, env: {CODEX_HOME: '/c', AGENTKIT_PLUGIN_DIR: '~/kits'}})).to.deep.equal({codexHome: '/c', pluginRoot: '/home/me/kits'})
    expect(resolveRoots({}, {...options, env: {CODEX_HOME: ''}}).codexHome).to.equal('/home/me/.codex')
  })

  it('lets the flags win, resolving relative paths against the working directory', () => {
    const roots = resolveRoots({codexHome: 'codex', pluginRoot: '/p'}, {...options, env: {CODEX_HOME: '/c'}})
    expect(roots).to.deep.equal({codexHome: '/work/codex', pluginRoot: '/p'})
  })

  it('refuses an empty flag', () => {
    expect(() => resolveRoots({codexHome: ' '}, {...options, env: {}})).to.throw(BadInputError, '--codex-home is empty')
  })
})

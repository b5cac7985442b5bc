import {runCommand} from '@oclif/test'
import {expect} from 'chai'

import {closestCommandId} from '../../../src/cli/suggest.js'
import {REPO_ROOT} from '../../helpers/clients.js'

const IDS = ['exec:serve', 'exec:tools', 'exec:call', 'exec:config', 'doctor', 'autocomplete']

describe('unknown commands', () => {
  it('suggests the closest command id', () => {
    expect(closestCommandId('exec:srve', IDS)).to.equal('exec:serve')
    expect(closestCommandId('docter', IDS)).to.equal('doctor')
  })

  it('matches a one-word typo against the last word of a command', () => {
    expect(closestCommandId('tols', IDS)).to.equal('exec:tools')
  })

  it('suggests nothing when every command is far off', () => {
    expect(closestCommandId('zzzzzzzzzz', IDS)).to.equal(undefined)
  })

  it('exits 2 with a suggestion on stderr for a mistyped command', async () => {
    const {error, stderr, stdout} = await runCommand(['exec', 'srve'], {root: REPO_ROOT})
    expect(error?.oclif?.exit).to.equal(2)
    expect(stderr).to.contain('"ak exec srve" is not an ak command. Did you mean "ak exec serve"?')
    expect(stdout).to.equal('')
  })

  it('suggests a topic for a mistyped topic', async () => {
    const {error, stderr} = await runCommand(['exce'], {root: REPO_ROOT})
    expect(error?.oclif?.exit).to.equal(2)
    expect(stderr).to.contain('"ak exce" is not an ak command. Did you mean "ak exec"?')
  })

  it('exits 2 for a flag where a command should be', async () => {
    const {error, stderr} = await runCommand(['--bogus'], {root: REPO_ROOT})
    expect(error?.oclif?.exit).to.equal(2)
    expect(stderr).to.contain('Unknown flag "--bogus" before a command')
  })

  it('exits 2 naming the extra words given to a command without arguments', async () => {
    const {error, stderr} = await runCommand(['exec', 'serve', 'extra'], {root: REPO_ROOT})
    expect(error?.oclif?.exit).to.equal(2)
    expect(stderr).to.contain('"ak exec serve" takes no argument "extra"')
  })
})

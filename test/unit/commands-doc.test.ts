import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import path from 'node:path'

import {REPO_ROOT} from '../helpers/clients.js'

describe('docs/commands.md', () => {
  it('is what `oclif readme` generates from the built commands (run `npm run docs:commands` when this fails)', function () {
    this.timeout(60_000)
    const check = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'commands-doc.js'), '--check'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
    expect(check.stderr).to.equal('')
    expect(check.status).to.equal(0)
  })
})

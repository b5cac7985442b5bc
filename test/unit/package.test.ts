import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {AK_VERSION} from '../../src/version.js'
import {REPO_ROOT} from '../helpers/clients.js'

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))

describe('package', () => {
  it('reports the version package.json declares', () => {
    expect(AK_VERSION).to.equal(pkg.version)
  })

  it('ships an oclif.manifest.json that matches the built commands (run `npm run manifest` when this fails)', function () {
    this.timeout(120_000)
    const scratch = mkdtempSync(path.join(tmpdir(), 'ak-manifest-'))
    try {
      cpSync(path.join(REPO_ROOT, 'package.json'), path.join(scratch, 'package.json'))
      cpSync(path.join(REPO_ROOT, 'dist'), path.join(scratch, 'dist'), {recursive: true})
      symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(scratch, 'node_modules'))
      execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'oclif', 'bin', 'run.js'), 'manifest'], {
        cwd: scratch,
        stdio: 'pipe',
      })
      const fresh = JSON.parse(readFileSync(path.join(scratch, 'oclif.manifest.json'), 'utf8'))
      const committed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8'))
      expect(committed).to.deep.equal(fresh)
    } finally {
      rmSync(scratch, {recursive: true, force: true})
    }
  })
})

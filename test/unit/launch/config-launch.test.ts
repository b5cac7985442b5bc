import {expect} from 'chai'
import {mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type AkInstall, agentExecLaunch, akBinsOnPath, akCommandLaunch, akInstallOf, currentAkInstall} from '../../../src/launch/config-launch.js'
import {AK_VERSION} from '../../../src/version.js'
import {RUN_JS} from '../../helpers/clients.js'

const NODE = '/opt/node-22/bin/node'
const GLOBAL_ROOT = '/usr/local/lib/node_modules/@agentorg/ak'
const PROJECT_ROOT = '/home/me/app/node_modules/@agentorg/ak'

describe('launch lines for client configs', () => {
  describe('akInstallOf', () => {
    it('takes a checkout outside node_modules for a clone, with absolute paths', () => {
      expect(akInstallOf({entryFile: '/home/me/src/ak/bin/run.js', node: NODE, version: '1.2.3', pathBins: {ak: '/home/me/src/ak/bin/run.js'}})).to.deep.equal({
        kind: 'clone',
        node: NODE,
        entryFile: '/home/me/src/ak/bin/run.js',
      })
    })

    it('takes a global install whose bins PATH finds for an installed package with both bins on PATH', () => {
      const install = akInstallOf({
        entryFile: `${GLOBAL_ROOT}/dist/ak.mjs`,
        node: NODE,
        version: '1.2.3',
        pathBins: {ak: `${GLOBAL_ROOT}/bin/run.js`, agentexec: `${GLOBAL_ROOT}/dist/agentexec.js`},
      })
      expect(install).to.deep.equal({kind: 'package', version: '1.2.3', binsOnPath: ['ak', 'agentexec'], node: NODE, packageRoot: GLOBAL_ROOT})
    })

    it("counts only the bins that are this package's: not another install's, not a clone's, not a package whose name starts the same", () => {
      const install = akInstallOf({
        entryFile: `${PROJECT_ROOT}/dist/ak.mjs`,
        node: NODE,
        version: '1.2.3',
        pathBins: {ak: `${GLOBAL_ROOT}/bin/run.js`, agentexec: '/home/me/app/node_modules/@agentorg/ak-old/dist/agentexec.js'},
      })
      expect(install).to.deep.equal({kind: 'package', version: '1.2.3', binsOnPath: [], node: NODE, packageRoot: PROJECT_ROOT})
    })

    it('takes the innermost package when installs are nested', () => {
      const nested = `/home/me/src/ak/node_modules/@agentorg/ak/node_modules/@agentorg/ak`
      const install = akInstallOf({entryFile: `${nested}/dist/ak.mjs`, node: NODE, version: '1', pathBins: {ak: `${nested}/bin/run.js`}})
      expect(install).to.deep.equal({kind: 'package', version: '1', binsOnPath: ['ak'], node: NODE, packageRoot: nested})
    })

    it('does not take a folder merely named like the package for one', () => {
      expect(akInstallOf({entryFile: '/srv/@agentorg/ak/bin/run.js', node: NODE, version: '1', pathBins: {}}).kind).to.equal('clone')
      expect(akInstallOf({entryFile: '/srv/node_modules/@agentorg/akx/bin/run.js', node: NODE, version: '1', pathBins: {}}).kind).to.equal('clone')
    })
  })

  describe('agentExecLaunch and akCommandLaunch', () => {
    const clone: AkInstall = {kind: 'clone', node: NODE, entryFile: '/src/ak/bin/run.js'}
    const global: AkInstall = {kind: 'package', version: '1.2.3', binsOnPath: ['ak', 'agentexec'], node: NODE, packageRoot: GLOBAL_ROOT}
    const local: AkInstall = {kind: 'package', version: '1.2.3', binsOnPath: [], node: NODE, packageRoot: PROJECT_ROOT}

    it("starts AgentExec through node and the entry file from a clone, its bin from a global install, node and the install's agentexec file otherwise", () => {
      const serve = ['--workspace', '/w', '--level', 'files']
      expect(agentExecLaunch(clone, serve)).to.deep.equal({command: NODE, args: ['/src/ak/bin/run.js', 'exec', 'serve', ...serve]})
      expect(agentExecLaunch(global, serve)).to.deep.equal({command: 'agentexec', args: serve})
      expect(agentExecLaunch(local, serve)).to.deep.equal({command: NODE, args: [`${PROJECT_ROOT}/dist/agentexec.js`, ...serve]})
    })

    it("starts ak through node and the entry file from a clone, its bin from a global install, node and the install's ak file otherwise", () => {
      const words = ['codex-agent-runtime', 'serve']
      expect(akCommandLaunch(clone, words)).to.deep.equal({command: NODE, args: ['/src/ak/bin/run.js', ...words]})
      expect(akCommandLaunch(global, words)).to.deep.equal({command: 'ak', args: words})
      expect(akCommandLaunch(local, words)).to.deep.equal({command: NODE, args: [`${PROJECT_ROOT}/bin/run.js`, ...words]})
      expect(akCommandLaunch({...global, binsOnPath: ['agentexec']}, words)).to.deep.equal({command: NODE, args: [`${GLOBAL_ROOT}/bin/run.js`, ...words]})
    })
  })

  describe('currentAkInstall', () => {
    it('is this clone, with the Node.js running now, whatever PATH holds', () => {
      expect(currentAkInstall('/usr/bin:/bin')).to.deep.equal({kind: 'clone', node: process.execPath, entryFile: RUN_JS})
    })

    it('finds the bins on PATH through their symlinks, skipping relative folders and files that cannot run', () => {
      const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ak-bins-')))
      try {
        const root = path.join(dir, 'node_modules', '@agentorg', 'ak')
        mkdirSync(path.join(root, 'bin'), {recursive: true})
        writeFileSync(path.join(root, 'bin', 'run.js'), '', {mode: 0o755})
        for (const folder of ['bin', 'first']) mkdirSync(path.join(dir, folder))
        symlinkSync(path.join(root, 'bin', 'run.js'), path.join(dir, 'bin', 'ak'))
        writeFileSync(path.join(dir, 'first', 'ak'), '', {mode: 0o644})
        writeFileSync(path.join(dir, 'first', 'agentexec'), '', {mode: 0o644})
        const searchPath = ['relative/bin', path.join(dir, 'first'), path.join(dir, 'bin')].join(path.delimiter)
        const pathBins = akBinsOnPath(searchPath)
        expect(pathBins).to.deep.equal({ak: path.join(root, 'bin', 'run.js')})
        expect(akInstallOf({entryFile: path.join(root, 'dist', 'ak.mjs'), node: NODE, version: AK_VERSION, pathBins})).to.deep.equal({
          kind: 'package',
          version: AK_VERSION,
          binsOnPath: ['ak'],
          node: NODE,
          packageRoot: root,
        })
      } finally {
        rmSync(dir, {recursive: true, force: true})
      }
    })
  })
})

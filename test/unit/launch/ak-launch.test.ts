import {expect} from 'chai'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

import {akEntryFile, akLaunch} from '../../../src/launch/ak-launch.js'
import {RUN_JS} from '../../helpers/clients.js'

describe('how ak is launched', () => {
  it('is the package bin/run.js when running from the source or dist tree', () => {
    expect(akEntryFile()).to.equal(RUN_JS)
    const fromDist = pathToFileURL(path.join(path.dirname(RUN_JS), '..', 'dist', 'launch', 'ak-launch.js')).href
    expect(akEntryFile(fromDist)).to.equal(RUN_JS)
  })

  it('is the bundle file itself when this module was bundled into it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ak-launch-'))
    try {
      const bundle = path.join(dir, 'ak.js')
      writeFileSync(bundle, '')
      expect(akEntryFile(pathToFileURL(bundle).href)).to.equal(bundle)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('launches with the absolute Node.js binary running now', () => {
    const launch = akLaunch(['exec', 'serve'])
    expect(launch.command).to.equal(process.execPath)
    expect(path.isAbsolute(launch.command)).to.equal(true)
    expect(launch.args).to.deep.equal([RUN_JS, 'exec', 'serve'])
  })
})

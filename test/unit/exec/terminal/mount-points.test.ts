import {expect} from 'chai'

import {mountPointOf, mountedPaths} from '../../../../src/exec/terminal/mount-points.js'

describe('paths a sandbox still mounts (mount-points.ts)', () => {
  it('reads the mount point of a mountinfo line, undoing the kernel\'s escapes', () => {
    expect(mountPointOf('100 99 254:0 /ws/a\\040b /ws/a\\040b\\011c ro,relatime - ext4 /dev/vda rw')).to.equal('/ws/a b\tc')
    expect(mountPointOf('')).to.equal(undefined)
  })

  it('finds a path some mount namespace has a mount on, and not one none has', function () {
    if (process.platform !== 'linux') this.skip()
    const found = mountedPaths(new Set(['/proc', '/no/such/mount/point']))
    expect([...found]).to.deep.equal(['/proc'])
  })
})

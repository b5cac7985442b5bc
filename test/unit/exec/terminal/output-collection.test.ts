import {expect} from 'chai'
import {runInNewContext} from 'node:vm'

import {OUTPUT_BYTES_PER_COLLECTION, collectAfterOutput, noteOutputRead} from '../../../../src/exec/terminal/output-collection.js'

/** Whether V8 gives new contexts its `gc` function, which the collections need. */
const isGcExposed = (): boolean => runInNewContext('typeof gc') === 'function'

describe('young-generation collections after command output', () => {
  it('changes nothing in V8 until a server turns them on and the first collection is due', function () {
    if (isGcExposed()) this.skip() // the test process itself was started with --expose-gc
    noteOutputRead(2 * OUTPUT_BYTES_PER_COLLECTION)
    expect(isGcExposed(), 'exposed before collections were turned on').to.equal(false)
    collectAfterOutput()
    noteOutputRead(OUTPUT_BYTES_PER_COLLECTION - 1)
    expect(isGcExposed(), 'exposed before the first collection was due').to.equal(false)
    noteOutputRead(1)
    expect(isGcExposed()).to.equal(true)
    // Later output keeps collecting without error.
    for (let chunk = 0; chunk < 200; chunk++) noteOutputRead(64 * 1024)
  })
})

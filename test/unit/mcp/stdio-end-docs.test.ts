import {expect} from 'chai'
import {readFile} from 'node:fs/promises'
import path from 'node:path'

import {STDIO_END_ANSWER_WAIT_MS} from '../../../src/mcp/stdio-transport.js'
import {REPO_ROOT} from '../../helpers/clients.js'

describe('the documented wait for answers at the end of stdio input', () => {
  it('the README quotes STDIO_END_ANSWER_WAIT_MS', async () => {
    const readme = (await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8')).replace(/\s+/g, ' ')
    expect(readme).to.contain(`if they come within ${STDIO_END_ANSWER_WAIT_MS} ms`)
  })
})

import {Client} from '@modelcontextprotocol/client'
import {InMemoryTransport} from '@modelcontextprotocol/server'
import {expect} from 'chai'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setImmediate as nextTurn} from 'node:timers/promises'

import {createExecConnection, createExecRuntime} from '../../../../src/exec/runtime.js'
import {createExecServer} from '../../../../src/exec/serving/server.js'
import {Workspace} from '../../../../src/exec/workspace.js'

describe('search workers started after initialized', () => {
  let folder: string
  beforeEach(async () => (folder = await mkdtemp(path.join(tmpdir(), 'ak-prestart-'))))
  afterEach(() => rm(folder, {recursive: true, force: true}))

  it('are not started for a runtime closed before they would start, so a closed runtime leaves no worker thread behind', async () => {
    const runtime = createExecRuntime({workspace: await Workspace.open(folder), level: 'read'})
    // The connection is left open, as a host that closes only its runtime leaves it.
    const server = createExecServer(runtime, createExecConnection())
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({name: 'test', version: '1'})
    await client.connect(clientSide)
    await runtime.close()
    await nextTurn()
    await nextTurn()
    expect([...runtime.services.keys()]).to.not.include('search-pool')
    await client.close()
  })
})

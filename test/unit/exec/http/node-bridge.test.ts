import {expect} from 'chai'
import {once} from 'node:events'
import {type Server, createServer, request} from 'node:http'
import type {AddressInfo} from 'node:net'

import {type WebHandler, toNodeBridge} from '../../../../src/exec/http/node-bridge.js'

/** Serves `handler` through the bridge on a loopback port; returns its URL and a closer. */
async function serve(handler: WebHandler, errors: Error[] = []): Promise<{url: string; close(): Promise<void>}> {
  const bridge = toNodeBridge(handler, {maxBodyBytes: 64, onerror: (error) => errors.push(error)})
  const server: Server = createServer((req, res) => void bridge(req, res))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

describe('exec/http/node-bridge', () => {
  it('sends an event stream\'s status and headers before its first event, and cancels the stream when the client leaves', async () => {
    let cancelled!: () => void
    const wasCancelled = new Promise<void>((resolve) => (cancelled = resolve))
    // A stream that never sends anything: only flushed headers can reach the client.
    const body = new ReadableStream({cancel: () => cancelled()})
    const server = await serve(async () => new Response(body, {headers: {'content-type': 'text/event-stream', 'x-probe': 'yes'}}))
    try {
      const req = request(server.url)
      req.end()
      const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage]
      expect(res.statusCode).to.equal(200)
      expect(res.headers['x-probe']).to.equal('yes')
      req.destroy()
      await wasCancelled
    } finally {
      await server.close()
    }
  })

  it('gives the handler a request whose signal aborts when the client leaves before the answer', async () => {
    let aborted!: () => void
    const wasAborted = new Promise<void>((resolve) => (aborted = resolve))
    let received!: () => void
    const wasReceived = new Promise<void>((resolve) => (received = resolve))
    const server = await serve(
      (request) =>
        new Promise<Response>((resolve) => {
          received()
          request.signal.addEventListener('abort', () => {
            aborted()
            resolve(new Response(null, {status: 204}))
          })
        }),
    )
    try {
      const req = request(server.url, {method: 'POST'})
      req.on('error', () => undefined)
      req.end('{}')
      await wasReceived
      req.destroy()
      await wasAborted
    } finally {
      await server.close()
    }
  })

  it('answers a body over the limit 413 and a handler that throws 500, both saying what to do', async () => {
    const errors: Error[] = []
    const server = await serve(async () => {
      throw new Error('broken')
    }, errors)
    try {
      const post = async (body: string) => {
        const answer = await fetch(server.url, {method: 'POST', body})
        return {status: answer.status, message: ((await answer.json()) as {error: {message: string}}).error.message}
      }
      const large = await post('x'.repeat(65))
      expect(large.status).to.equal(413)
      expect(large.message).to.match(/longer than 64 bytes.*Send less/)
      const failed = await post('{}')
      expect(failed.status).to.equal(500)
      expect(failed.message).to.contain('the server log says why')
      expect(errors.map((error) => error.message)).to.deep.equal(['broken'])
    } finally {
      await server.close()
    }
  })
})

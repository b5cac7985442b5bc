/**
 * A 2025-era GET event stream opened on a bare socket, so a test sees the bytes exactly as they
 * arrive: whether the status line and headers come on their own, before any event or keepalive.
 */
import {expect} from 'chai'
import {once} from 'node:events'
import {type Socket, connect} from 'node:net'

import {INITIALIZE_BODY, mcpPostHeaders, rawRequest} from './raw-http.js'

/** An open (or refused) GET on a raw socket. */
export interface RawEventStream {
  /** The status code of the answer. */
  status: number
  /** The header block, lower-cased names, as received. */
  headers: Record<string, string>
  /** Whatever followed the header block in the bytes received together with it. */
  afterHeaders: string
  /** Closes the socket from the client's side and waits until it is closed. */
  drop(): Promise<void>
}

/**
 * Sends `GET url` with `headers` (Host is added) on a new socket and resolves as soon as the
 * whole header block has arrived, with what came with it. A server that holds its headers back
 * until the first event makes this wait for that event.
 */
export async function openRawEventStream(url: string, headers: Record<string, string>): Promise<RawEventStream> {
  const target = new URL(url)
  const socket: Socket = connect(Number(target.port), target.hostname)
  await once(socket, 'connect')
  const lines = [`GET ${target.pathname} HTTP/1.1`, `host: ${target.host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)]
  socket.write(`${lines.join('\r\n')}\r\n\r\n`)
  let received = ''
  socket.setEncoding('utf8')
  const head = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: string) => {
      received += chunk
      if (received.includes('\r\n\r\n')) {
        socket.off('data', onData)
        resolve(received)
      }
    }
    socket.on('data', onData)
    socket.once('error', reject)
    socket.once('end', () => reject(new Error(`the server closed the stream before its headers; received: ${received}`)))
  })
  const end = head.indexOf('\r\n\r\n')
  const [statusLine = '', ...headerLines] = head.slice(0, end).split('\r\n')
  const parsed: Record<string, string> = {}
  for (const line of headerLines) {
    const colon = line.indexOf(':')
    parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return {
    status: Number(statusLine.split(' ')[1]),
    headers: parsed,
    afterHeaders: head.slice(end + 4),
    async drop() {
      if (socket.destroyed) return
      const closed = once(socket, 'close')
      socket.destroy()
      await closed
    },
  }
}

/** Opens a 2025-era session with a bare `initialize` and returns its `Mcp-Session-Id`. */
export async function openLegacySession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const answer = await rawRequest(url, {headers: mcpPostHeaders(undefined, headers), body: INITIALIZE_BODY})
  const id = answer.headers['mcp-session-id']
  if (answer.status !== 200 || typeof id !== 'string') throw new Error(`initialize failed: ${answer.status} ${answer.body}`)
  return id
}

/** The headers of a 2025-era GET event stream for session `id`. */
export function eventStreamHeaders(id: string, headers: Record<string, string> = {}): Record<string, string> {
  return {accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25', ...headers}
}

/**
 * The checks every AgentExec HTTP server must pass on its 2025-era GET event stream (defines
 * mocha tests): its status and headers arrive at once, on their own; and a client that drops the
 * stream can open it again right away, because the server notices the closed socket and releases
 * the session's one stream.
 * @param server the endpoint's URL and the headers every request needs (token, host secret…)
 */
export function itServesEventStreamsAtOnce(server: () => {url: string; headers: Record<string, string>}): void {
  it('sends a GET event stream\'s status and headers at once, before any event or keepalive', async () => {
    const {url, headers} = server()
    const id = await openLegacySession(url, headers)
    const stream = await openRawEventStream(url, eventStreamHeaders(id, headers))
    try {
      expect(stream.status).to.equal(200)
      expect(stream.headers['content-type']).to.match(/^text\/event-stream/)
      expect(stream.headers['mcp-session-id']).to.equal(id)
      // Headers held back arrive only together with the first keepalive, in the same bytes.
      expect(stream.afterHeaders, 'bytes that came with the headers').to.equal('')
    } finally {
      await stream.drop()
    }
  })

  it('lets a client that dropped its GET event stream open it again at once', async () => {
    const {url, headers} = server()
    const id = await openLegacySession(url, headers)
    for (let attempt = 1; attempt <= 3; attempt++) {
      const stream = await openRawEventStream(url, eventStreamHeaders(id, headers))
      await stream.drop()
      expect(stream.status, `attempt ${attempt}: ${stream.afterHeaders}`).to.equal(200)
    }
  })
}

/**
 * Defines a mocha test: while a session's GET event stream is open, a second GET gets 409 saying
 * to close the first.
 */
export function itRefusesASecondEventStream(server: () => {url: string; headers: Record<string, string>}): void {
  it('refuses a second GET event stream while one is open: 409 saying to close the first', async () => {
    const {url, headers} = server()
    const id = await openLegacySession(url, headers)
    const first = await openRawEventStream(url, eventStreamHeaders(id, headers))
    try {
      expect(first.status).to.equal(200)
      const second = await openRawEventStream(url, eventStreamHeaders(id, headers))
      await second.drop()
      expect(second.status).to.equal(409)
      expect(second.afterHeaders).to.contain('already has its GET event stream open')
      expect(second.afterHeaders).to.contain('Close that stream before opening another')
    } finally {
      await first.drop()
    }
  })
}

import {isIP} from 'node:net'

import {BadInputError} from '../../errors.js'

/** Where `ak exec serve --http` listens. */
export interface ListenAddress {
  /** The host as given, without IPv6 brackets (`127.0.0.1`, `::1`, `localhost`). */
  host: string
  /** TCP port; 0 asks the system for a free one. */
  port: number
}

/**
 * Whether `host` (a bind address or a hostname, IPv6 with or without brackets) is loopback:
 * `localhost`, an address in 127.0.0.0/8, or `::1`. Names other than `localhost` are never
 * loopback here, even if they resolve to it, because what they resolve to can change.
 */
export function isLoopbackHost(host: string): boolean {
  let name = host.toLowerCase()
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1)
  if (name === 'localhost') return true
  const family = isIP(name)
  if (family === 4) return name.split('.')[0] === '127'
  if (family === 6) return new URL(`http://[${name}]`).hostname === '[::1]'
  return false
}

/**
 * Parses `--http HOST:PORT` (`127.0.0.1:8080`, `localhost:0`, `[::1]:9000`) and refuses any host
 * that is not loopback: the HTTP server has no TLS, so the token and every file and command
 * output would cross the network in clear text (DESIGN §4.6).
 * @throws BadInputError for a malformed value or a host that is not loopback.
 */
export function parseListenAddress(value: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim())
  if (!match) {
    throw new BadInputError(
      `--http "${value}" is not HOST:PORT. Examples: 127.0.0.1:8080, localhost:0 (a free port), [::1]:8080.`,
    )
  }
  const host = (match[1] ?? match[2]) as string
  const port = Number(match[3])
  if (port > 65_535) throw new BadInputError(`--http "${value}": the port must be between 0 and 65535 (0 picks a free one).`)
  if (!isLoopbackHost(host)) {
    throw new BadInputError(
      `--http "${value}": ak only listens on a loopback address (127.0.0.0/8, ::1 or localhost). ` +
        `The HTTP server has no TLS, so the token, file contents and command output would cross the network ` +
        `in clear text. To serve other machines, mount createAgentExec from "@agentorg/exec" (library mode) ` +
        `in your own HTTPS server behind its own authentication.`,
    )
  }
  return {host, port}
}

import {realpathSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/**
 * The absolute path of the file that starts ak (`bin/run.js` of the installed package), with
 * symlinks resolved. MCP client configs name it together with the Node binary because clients
 * start servers with a reduced PATH. The one place that knows where the entry lives: this module
 * is `<package>/dist/codex/ak-entry.js` (or `src/codex/ak-entry.ts` when run from source).
 */
export function akEntryFile(): string {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const entry = path.resolve(here, '..', '..', 'bin', 'run.js')
  try {
    return realpathSync(entry)
  } catch {
    return entry
  }
}

import {constants} from 'node:fs'
import {access, stat} from 'node:fs/promises'
import path from 'node:path'

/**
 * The first executable file called `name` in the folders of `searchPath` (a PATH value, entries
 * separated by `path.delimiter`; empty entries and relative ones are skipped, as a shell started
 * from another folder would not find them), or undefined.
 */
export async function findExecutable(name: string, searchPath: string | undefined): Promise<string | undefined> {
  for (const folder of (searchPath ?? '').split(path.delimiter)) {
    if (!folder || !path.isAbsolute(folder)) continue
    const candidate = path.join(folder, name)
    try {
      if (!(await stat(candidate)).isFile()) continue
      await access(candidate, constants.X_OK)
      return candidate
    } catch {
      // not there, or not executable: keep looking
    }
  }
  return undefined
}

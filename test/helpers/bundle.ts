/** The one-file bundle, copied alone into an empty folder the way a user would run it. */
import {copyFileSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT} from './clients.js'

/** The bundle `npm run build` writes. */
export const BUNDLE = path.join(REPO_ROOT, 'dist', 'ak.mjs')

/** A copy of the bundle in an otherwise empty temporary folder (no package.json, no node_modules). */
export interface LoneBundle {
  dir: string
  file: string
  remove(): void
}

/** Copies dist/ak.mjs alone into a fresh temporary folder. */
export function copyBundleAlone(): LoneBundle {
  const dir = mkdtempSync(path.join(tmpdir(), 'ak-bundle-'))
  const file = path.join(dir, 'ak.mjs')
  copyFileSync(BUNDLE, file)
  return {dir, file, remove: () => rmSync(dir, {recursive: true, force: true})}
}

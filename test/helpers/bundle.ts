/** The one-file bundles, copied alone into an empty folder the way a user would run them. */
import {copyFileSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT} from './clients.js'

/** The bundle `npm run build` writes. */
export const BUNDLE = path.join(REPO_ROOT, 'dist', 'ak.mjs')

/**
 * The standalone AgentExec server `npm run build` writes (no oclif, no Codex code): one file, the
 * launcher `agentexec` runs, which carries STANDALONE_BUNDLE inside itself.
 */
export const STANDALONE_SERVER = path.join(REPO_ROOT, 'dist', 'agentexec.js')

/** The AgentExec bundle (server and library) that STANDALONE_SERVER carries and dist/exec.js imports. */
export const STANDALONE_BUNDLE = path.join(REPO_ROOT, 'dist', 'agentexec-bundle.cjs')

/** A copy of the bundle in an otherwise empty temporary folder (no package.json, no node_modules). */
export interface LoneBundle {
  dir: string
  file: string
  remove(): void
}

/** Copies dist/ak.mjs (or `source`, e.g. STANDALONE_SERVER) alone into a fresh temporary folder. */
export function copyBundleAlone(source: string = BUNDLE): LoneBundle {
  const dir = mkdtempSync(path.join(tmpdir(), 'ak-bundle-'))
  const file = path.join(dir, path.basename(source))
  copyFileSync(source, file)
  return {dir, file, remove: () => rmSync(dir, {recursive: true, force: true})}
}

import {chmod, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

/** A scratch machine for `ak doctor`: a home, a project folder and a bin folder for PATH. */
export interface DoctorFixture {
  root: string
  home: string
  project: string
  bin: string
  /** PATH with `bin` first, then the system folders (no Node.js needed on it). */
  path: string
  /** Writes a stand-in `codex` into `bin` that prints `versionLine` for --version (or exits `exitCode`). */
  installCodex(options?: {versionLine?: string; exitCode?: number}): Promise<string>
  cleanup(): Promise<void>
}

export async function createDoctorFixture(): Promise<DoctorFixture> {
  const root = await mkdtemp(path.join(tmpdir(), 'ak-doctor-'))
  const home = path.join(root, 'home')
  const project = path.join(root, 'project')
  const bin = path.join(root, 'bin')
  await Promise.all([mkdir(home), mkdir(project), mkdir(bin)])
  return {
    root,
    home,
    project,
    bin,
    path: [bin, '/usr/bin', '/bin'].join(path.delimiter),
    async installCodex(options = {}) {
      const codex = path.join(bin, 'codex')
      const body =
        options.exitCode === undefined
          ? `echo '${options.versionLine ?? 'codex-cli 0.171.0'}'\n`
          : `echo 'codex: broken install' >&2\nexit ${options.exitCode}\n`
      await writeFile(codex, `#!/bin/sh\n${body}`)
      await chmod(codex, 0o755)
      return codex
    },
    cleanup: () => rm(root, {recursive: true, force: true}),
  }
}

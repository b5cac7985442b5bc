/**
 * Finds or makes the Python environments the interop tests drive AgentExec from: one per line of
 * the official Python MCP client (PyPI `mcp` 1.x, which speaks the 2025 revisions, and 2.x, which
 * speaks 2026-07-28), each installed from its pinned requirements file.
 *
 * A Python named by `AGENTEXEC_PYTHON` (1.x line) or `AGENTEXEC_PYTHON_V2` (2.x line) is used as
 * it is. Otherwise a virtual environment is made under `.venv-test/<line>/` from the interpreter
 * `python3` on PATH resolves to, and the requirements are installed into it; it is reused while
 * the requirements file is unchanged (a stamp holds its hash) and its `mcp` is the pinned one, so
 * only the first run installs.
 */
import {execa} from 'execa'
import {createHash} from 'node:crypto'
import {readFile, rename, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {REPO_ROOT} from './clients.js'

/** One line of the Python MCP client. */
export interface PythonClientLine {
  /** `v1` or `v2`: what the test program reports as its line. */
  id: 'v1' | 'v2'
  /** The pinned `mcp` version (the requirements file pins it too). */
  mcpVersion: string
  /** The protocol revision this line negotiates with AgentExec. */
  protocolVersion: string
  /** Requirements file, relative to the repository root. */
  requirements: string
  /** Environment variable that names a ready Python for this line instead of a managed one. */
  envVar: string
}

export const PYTHON_CLIENT_LINES: PythonClientLine[] = [
  {id: 'v1', mcpVersion: '1.30.0', protocolVersion: '2025-11-25', requirements: 'requirements-test.txt', envVar: 'AGENTEXEC_PYTHON'},
  {id: 'v2', mcpVersion: '2.3.0', protocolVersion: '2026-07-28', requirements: 'requirements-test-v2.txt', envVar: 'AGENTEXEC_PYTHON_V2'},
]

/** The oldest Python both client lines install on (their `Requires-Python: >=3.10`). */
const MIN_PYTHON: [number, number] = [3, 10]
const BASE_PYTHON = 'python3'
const VENV_ROOT = path.join(REPO_ROOT, '.venv-test')
const STAMP_FILE = 'ak-requirements.sha256'
const NO_PYTHON_HELP =
  `Install Python ${MIN_PYTHON.join('.')} or later with its venv module ` +
  `(Debian/Ubuntu: apt-get install python3 python3-venv; macOS: brew install python), ` +
  'or set AGENTEXEC_PYTHON (and AGENTEXEC_PYTHON_V2) to a Python that has the pinned mcp installed ' +
  '(pip install -r requirements-test.txt, requirements-test-v2.txt).'

/**
 * The Python interpreter to run the test program with for `line`.
 * @returns the interpreter's path and a short note on where it came from, for test titles
 * @throws Error saying what to install when no usable Python 3 exists, or when the one named by
 *   the line's environment variable lacks the line's `mcp`
 */
export async function pythonForLine(line: PythonClientLine): Promise<{python: string; origin: string}> {
  const named = process.env[line.envVar]
  if (named) {
    const installed = await mcpVersionOf(named)
    if (installed?.split('.')[0] !== line.mcpVersion.split('.')[0]) {
      throw new Error(
        `${line.envVar}=${named} has mcp ${installed ?? '(not installed)'}, not the ${line.mcpVersion.split('.')[0]}.x line. ` +
          `Install it there with: ${named} -m pip install -r ${line.requirements}`,
      )
    }
    return {python: named, origin: `${line.envVar}, mcp ${installed}`}
  }
  const venv = path.join(VENV_ROOT, line.id)
  const python = path.join(venv, 'bin', 'python')
  const requirements = await readFile(path.join(REPO_ROOT, line.requirements), 'utf8')
  const stamp = createHash('sha256').update(requirements).digest('hex')
  if ((await readStamp(venv)) === stamp && (await mcpVersionOf(python)) === line.mcpVersion) {
    return {python, origin: `.venv-test/${line.id}`}
  }
  // Built beside the old one and renamed into place, so a run never sees a half-made environment.
  const base = await basePython()
  const building = `${venv}.${process.pid}.tmp`
  await rm(building, {recursive: true, force: true})
  try {
    await execa(base.executable, ['-m', 'venv', building])
  } catch (error) {
    await rm(building, {recursive: true, force: true})
    throw new Error(`${base.executable} -m venv ${building} failed: ${(error as Error).message}\n${NO_PYTHON_HELP}`)
  }
  try {
    await execa(path.join(building, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--quiet', '-r', line.requirements], {
      cwd: REPO_ROOT,
    })
    await writeFile(path.join(building, STAMP_FILE), stamp)
    await rm(venv, {recursive: true, force: true})
    await rename(building, venv)
  } finally {
    await rm(building, {recursive: true, force: true})
  }
  return {python, origin: `.venv-test/${line.id}, made now from Python ${base.version}`}
}

async function readStamp(venv: string): Promise<string | undefined> {
  try {
    return await readFile(path.join(venv, STAMP_FILE), 'utf8')
  } catch {
    return undefined
  }
}

/** The interpreter `python3` on PATH resolves to (through shims such as pyenv's), and its version. */
async function basePython(): Promise<{version: string; executable: string}> {
  let output: string
  try {
    output = (await execa(BASE_PYTHON, ['-c', 'import sys; print(sys.version.split()[0]); print(sys.executable)'])).stdout
  } catch (error) {
    const missing = (error as {code?: string}).code === 'ENOENT'
    throw new Error(`${missing ? `No ${BASE_PYTHON} on PATH` : `${BASE_PYTHON} does not run: ${(error as Error).message}`}. ${NO_PYTHON_HELP}`)
  }
  const [version = '', executable = ''] = output.trim().split('\n')
  const [major = 0, minor = 0] = version.split('.').map(Number)
  if (major !== MIN_PYTHON[0] || minor < MIN_PYTHON[1]) {
    throw new Error(`${BASE_PYTHON} is Python ${version}; the MCP client needs ${MIN_PYTHON.join('.')} or later. ${NO_PYTHON_HELP}`)
  }
  return {version, executable}
}

async function mcpVersionOf(python: string): Promise<string | undefined> {
  try {
    const {stdout} = await execa(python, ['-c', 'from importlib.metadata import version; print(version("mcp"))'])
    return stdout.trim()
  } catch {
    return undefined
  }
}

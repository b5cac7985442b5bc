/**
 * Loaded before every test file (.mocharc.cjs): the tests, and every server and shell they start,
 * run with a HOME of their own, an empty folder removed at the end. A login shell started by a
 * server under test then reads no profile of the machine's user, so a test neither depends on
 * that profile nor leaves it broken: a profile that runs `pyenv init` takes a lock that a shell
 * killed at the wrong moment leaves behind, and every later login shell then waits a minute.
 * The caches of the tools the tests install with (npm, pip) and pyenv's own folder stay where
 * they are. Tests that need a profile write one into a HOME they make themselves.
 */
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {homedir, tmpdir} from 'node:os'
import path from 'node:path'

const realHome = homedir()
const home = mkdtempSync(path.join(tmpdir(), 'ak-test-home-'))
const keep = (name: string, value: string): void => {
  if (process.env[name] === undefined && existsSync(value)) process.env[name] = value
}
keep('PYENV_ROOT', path.join(realHome, '.pyenv'))
keep('npm_config_cache', path.join(realHome, '.npm'))
keep('PIP_CACHE_DIR', path.join(realHome, '.cache', 'pip'))
keep('RUSTUP_HOME', path.join(realHome, '.rustup'))
keep('CARGO_HOME', path.join(realHome, '.cargo'))
process.env.HOME = home
process.on('exit', () => rmSync(home, {recursive: true, force: true}))

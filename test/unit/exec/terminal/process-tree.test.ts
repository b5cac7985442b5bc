import {expect} from 'chai'
import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {
  type ProcessInfo,
  parseEnvironTags,
  parseStat,
  selectTargetProcesses,
  stopProcessGroup,
} from '../../../../src/exec/terminal/process-tree.js'

function proc(pid: number, ppid: number, extra: Partial<ProcessInfo> = {}): ProcessInfo {
  return {pid, ppid, pgid: pid, sid: pid, state: 'S', tags: [], ...extra}
}

describe('process tree', () => {
  it('parses /proc/<pid>/stat even when the command name holds spaces and parentheses', () => {
    expect(parseStat('4242 (my (odd) name) S 1 4240 4200 0 -1 4194560 ...')).to.deep.equal({
      pid: 4242,
      ppid: 1,
      pgid: 4240,
      sid: 4200,
      state: 'S',
    })
    expect(parseStat('garbage')).to.equal(undefined)
  })

  it('reads the tags from a NUL-separated environment', () => {
    expect(parseEnvironTags('PATH=/bin\0AK_EXEC_TAG=a,b\0HOME=/root\0')).to.deep.equal(['a', 'b'])
    expect(parseEnvironTags('PATH=/bin\0')).to.deep.equal([])
  })

  it('selects tagged processes, members of a leader group or session, and their descendants, but no zombies', () => {
    const processes = [
      proc(1, 0),
      proc(100, 1), // the leader (shell)
      proc(101, 100, {pgid: 100, sid: 100}), // in the group
      proc(102, 1, {pgid: 100, sid: 100}), // reparented, still in the session
      proc(200, 1, {tags: ['t']}), // left with setsid, parent gone, tagged
      proc(201, 200, {pgid: 200, sid: 200}), // child of the tagged one, env cleared
      proc(300, 1, {tags: ['other']}), // someone else's
      proc(301, 100, {pgid: 100, sid: 100, state: 'Z'}), // zombie
    ]
    const pids = selectTargetProcesses(processes, new Set(['t']), [100]).map((info) => info.pid)
    expect(pids.sort()).to.deep.equal([100, 101, 102, 200, 201])
  })

  it('finds a tagged process once its leader is gone', () => {
    const processes = [proc(1, 0), proc(200, 1, {tags: ['x', 't']})]
    expect(selectTargetProcesses(processes, new Set(['t']), []).map((info) => info.pid)).to.deep.equal([200])
  })

  describe('stopProcessGroup', () => {
    async function startGroup(dir: string, ownSession: boolean): Promise<number> {
      const log = path.join(dir, 'signals')
      const ready = path.join(dir, 'ready')
      // A leader like bubblewrap, and under it a shell (in a session of its own or not) that cleans up on SIGTERM.
      const inner = `trap 'echo inner >> "${log}"; exit 0' TERM; : > "${ready}"; while :; do sleep 0.1; done`
      const leader = spawn('/bin/sh', ['-c', `trap 'echo leader >> "${log}"; exit 0' TERM; ${ownSession ? 'setsid ' : ''}/bin/sh -c '${inner.replaceAll("'", "'\\''")}' & wait`], {
        detached: true,
        stdio: 'ignore',
      })
      while (!existsSync(ready)) await new Promise((resolve) => setTimeout(resolve, 20))
      return leader.pid!
    }

    it('sends SIGTERM to the whole group first, so traps run, and returns once it is gone', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'ak-group-'))
      try {
        const pgid = await startGroup(dir, false)
        await stopProcessGroup(pgid, {graceMs: 5000})
        expect((await readFile(path.join(dir, 'signals'), 'utf8')).split('\n').sort()).to.deep.equal(['', 'inner', 'leader'])
      } finally {
        await rm(dir, {recursive: true, force: true})
      }
    })

    it('with spareLeader, signals what runs under the leader, even in a session of its own, and not the leader', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'ak-group-'))
      try {
        const pgid = await startGroup(dir, true)
        await stopProcessGroup(pgid, {graceMs: 5000, spareLeader: true})
        expect(await readFile(path.join(dir, 'signals'), 'utf8')).to.equal('inner\n')
      } finally {
        await rm(dir, {recursive: true, force: true})
      }
    })
  })
})

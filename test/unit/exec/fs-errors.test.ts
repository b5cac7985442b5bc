import {expect} from 'chai'
import {constants} from 'node:os'

import {AkError, BadInputError, LimitReachedError, NotFoundError} from '../../../src/errors.js'
import {describeSystemError, explainFsError, isSystemError} from '../../../src/exec/fs-errors.js'

/** A system error as Node raises it: a code, a negative errno and a message naming the real path. */
function systemError(code: string): NodeJS.ErrnoException {
  const number = (constants.errno as Record<string, number>)[code]
  return Object.assign(new Error(`${code}: failed, open '/real/outside/path'`), {code, errno: number === undefined ? undefined : -number, syscall: 'open'})
}

/** The message and class `explainFsError` gives for `code`, for the path "a\nb.txt". */
function explained(code: string, action?: 'look' | 'write') {
  const error = explainFsError(systemError(code), 'a\nb.txt', action)
  return {type: error.constructor.name, message: error.message}
}

describe('explainFsError (system errors as sentences a model can act on)', () => {
  const shown = '"a\\nb.txt"'
  const expected: Record<string, [string, string]> = {
    ENOENT: ['NotFoundError', `Nothing exists at ${shown} (or a part of it is a file, or it was removed or moved meanwhile). Check the path with the list tool.`],
    EACCES: ['BadInputError', `No permission for ${shown}: the server's user may not open it or a folder on the way. Check its permissions.`],
    ENAMETOOLONG: ['BadInputError', `${shown} is longer than the system allows (255 bytes per name, 4096 per path). Use a shorter path.`],
    EINVAL: ['BadInputError', `${shown} changed while it was being worked on, or cannot be used this way. Retry; if it keeps failing, look at it with the list tool.`],
    ELOOP: [
      'BadInputError',
      `${shown} became a symbolic link while it was being opened, or leads through too many links. Retry; if it keeps failing, look at it with the list tool.`,
    ],
    EISDIR: ['BadInputError', `${shown} is a folder, not a file. Use the list tool to see what it contains.`],
    EEXIST: ['BadInputError', `${shown} already exists (or a part of it is a file, not a folder). Check the path with the list tool.`],
    ENOTEMPTY: ['BadInputError', `${shown} is a folder that is not empty.`],
    EROFS: ['BadInputError', `${shown} is on a read-only file system.`],
    EBUSY: ['BadInputError', `${shown} is busy (in use by the system or a running program). Retry later.`],
    ENXIO: ['BadInputError', `${shown} is a device, pipe or socket, not a regular file. The file tools work on regular files.`],
    ENOSPC: ['LimitReachedError', `No space left on the disk for ${shown}. Free some space and retry.`],
    EFBIG: ['LimitReachedError', `${shown} is too large for this operation.`],
    EMFILE: ['LimitReachedError', `The server has too many files open to open ${shown} now. Retry in a moment.`],
    EXDEV: ['BadInputError', `${shown} is on another file system than its folder's entry, so it cannot be replaced in one step.`],
    EIO: ['BadInputError', `The file system reported an error for ${shown} (i/o error). Retry; if it persists, the disk or network file system is failing.`],
    ECONNRESET: ['BadInputError', `The system refused an operation on ${shown}: connection reset by peer.`],
  }

  for (const [code, [type, message]] of Object.entries(expected)) {
    it(`explains ${code} by what was wrong and what to do`, () => {
      expect(explained(code)).to.deep.equal({type, message})
    })
  }

  it('gives codes of one kind the same sentence', () => {
    const kinds = [
      ['ENOENT', 'ENOTDIR'],
      ['EACCES', 'EPERM'],
      ['ELOOP', 'EMLINK'],
      ['EBUSY', 'ETXTBSY'],
      ['ENXIO', 'EAGAIN', 'EWOULDBLOCK', 'ENODEV'],
      ['ENOSPC', 'EDQUOT'],
      ['EFBIG', 'EOVERFLOW'],
      ['EMFILE', 'ENFILE'],
    ]
    for (const [first, ...others] of kinds) {
      for (const code of others) expect(explained(code as string), code).to.deep.equal(explained(first as string))
    }
    // The same kind, with the system's own words for each.
    expect(explained('ETIMEDOUT').message).to.equal(
      `The file system reported an error for ${shown} (connection timed out). Retry; if it persists, the disk or network file system is failing.`,
    )
    expect(explained('ESTALE').message).to.match(/^The file system reported an error for "a\\nb\.txt" \(.+\)\. Retry; if it persists/)
  })

  it('adds that nothing was changed when a write failed', () => {
    expect(explained('ENOENT', 'write').message).to.equal(
      `Nothing exists at ${shown} (or a part of it is a file, or it was removed or moved meanwhile). Nothing was changed. Check the path with the list tool.`,
    )
    expect(explained('ENOTEMPTY', 'write').message).to.equal(`${shown} is a folder that is not empty. Nothing was changed.`)
    expect(explained('ECONNRESET', 'write').message).to.equal(`The system refused an operation on ${shown}: connection reset by peer. Nothing was changed.`)
  })

  it('never passes on the real path a system error names', () => {
    for (const code of [...Object.keys(expected), 'ESTALE', 'EPERM']) expect(explained(code).message, code).not.to.contain('/real/outside')
  })

  it('returns an AkError, and an error that is not a system error, as it is', () => {
    const ak = new BadInputError('already explained')
    expect(explainFsError(ak, 'x')).to.equal(ak)
    const bug = new TypeError('x is not a function')
    expect(explainFsError(bug, 'x')).to.equal(bug)
    const numbered = Object.assign(new Error('odd'), {code: 42})
    expect(explainFsError(numbered, 'x')).to.equal(numbered)
    expect(explainFsError(undefined, 'x')).to.equal(undefined)
  })

  it('tells system errors by their code', () => {
    expect(isSystemError(systemError('ENOENT'))).to.equal(true)
    expect(isSystemError(new Error('no code'))).to.equal(false)
    expect(isSystemError({code: 'ENOENT'})).to.equal(false)
    expect(isSystemError(Object.assign(new Error('x'), {code: 1}))).to.equal(false)
  })

  it("describes an errno in the system's words, lower-cased, and an error without one as unexpected", () => {
    expect(describeSystemError(systemError('ENOENT'))).to.equal('no such file or directory')
    expect(describeSystemError(Object.assign(new Error('x'), {code: 'EWHAT'}))).to.equal('an unexpected error')
  })

  it('makes every explained error an AkError of the right class', () => {
    expect(explainFsError(systemError('ENOENT'), 'x')).to.be.instanceOf(NotFoundError)
    expect(explainFsError(systemError('EACCES'), 'x')).to.be.instanceOf(BadInputError)
    expect(explainFsError(systemError('ENOSPC'), 'x')).to.be.instanceOf(LimitReachedError)
    expect(explainFsError(systemError('EWHATEVER'), 'x')).to.be.instanceOf(AkError)
  })
})

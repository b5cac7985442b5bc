import {createInterface} from 'node:readline/promises'

import {BadInputError} from './errors.js'

/**
 * Asks a yes/no question before a change, honouring the shared flags: `--yes` answers yes without
 * asking; otherwise the question is asked on stderr and read from stdin when stdin is a terminal
 * and `--no-interactive` is not given.
 * @returns whether the answer was yes.
 * @throws BadInputError (exit 2) when an answer is needed but cannot be asked: the message says to pass --yes.
 */
export async function confirmChange(question: string, flags: {yes?: boolean; 'no-interactive'?: boolean}): Promise<boolean> {
  if (flags.yes) return true
  if (flags['no-interactive'] || !process.stdin.isTTY) {
    const why = flags['no-interactive'] ? '--no-interactive is set' : 'stdin is not a terminal'
    throw new BadInputError(`This command changes a file and needs a confirmation, but ${why}. Pass --yes to confirm; nothing was changed.`)
  }
  const readline = createInterface({input: process.stdin, output: process.stderr})
  try {
    const answer = await readline.question(`${question} [y/N] `)
    return /^y(es)?$/i.test(answer.trim())
  } finally {
    readline.close()
  }
}

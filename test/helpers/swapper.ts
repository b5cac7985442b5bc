/** A compiled swapper for race tests: a folder and a link exchanged as fast as the kernel allows. */
import {execFileSync} from 'node:child_process'
import {writeFile} from 'node:fs/promises'

import {skipBecause} from './processes.js'

/** renameat2(RENAME_EXCHANGE) of two paths (argv 1 and 2) in a tight loop for argv 3 seconds. */
const SWAPPER_C = `
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  time_t end = time(NULL) + atoi(argv[3]);
  for (unsigned long round = 0;; round++) {
    if ((round & 1023) == 0 && time(NULL) >= end) return 0;
    syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], 2 /* RENAME_EXCHANGE */);
  }
}
`

/**
 * Compiles the swapper into `file` (its source beside it, `<file>.c`); run it as
 * `file <path a> <path b> <seconds>`. Skips the running test, saying why, when there is no C
 * compiler (`cc`) here.
 */
export async function compileSwapperOrSkip(context: Mocha.Context, file: string): Promise<void> {
  await writeFile(`${file}.c`, SWAPPER_C)
  try {
    execFileSync('cc', ['-O2', '-o', file, `${file}.c`], {stdio: 'ignore'})
  } catch {
    skipBecause(context, 'needs a C compiler, cc, for the swapper')
  }
}

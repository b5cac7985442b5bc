import type {Hook} from '@oclif/core'
import {writeFile} from 'node:fs/promises'
import path from 'node:path'

import {bashCompletionScript, completionCommandsOf} from '../cli/bash-completion.js'

/** The plugin commands after which its completion files have been (re)written. */
const WRITERS = new Set(['autocomplete', 'autocomplete:create'])

/**
 * After `@oclif/plugin-autocomplete` writes its completion files (`ak autocomplete`, and its
 * hidden command `autocomplete:create`, which refreshes the cache), replaces its bash
 * function with ak's own (see `bashCompletionScript`), at the path its bash set-up line sources:
 * `<cacheDir>/autocomplete/functions/bash/<bin>.bash`. The plugin's script breaks after a flag
 * that takes a value and repeats topics; its zsh and PowerShell files are kept.
 */
const hook: Hook.Postrun = async function ({Command, config}) {
  if (!WRITERS.has(Command.id)) return
  const file = path.join(config.cacheDir, 'autocomplete', 'functions', 'bash', `${config.bin}.bash`)
  await writeFile(file, bashCompletionScript(config.bin, completionCommandsOf(config)))
}

export default hook

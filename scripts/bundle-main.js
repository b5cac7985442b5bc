// Runtime part of the one-file bundle (dist/ak.mjs); scripts/build.js bundles it with the command
// map it generates. Not shipped on its own.
import {execute} from '@oclif/core'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {checkNodeVersion} from '../bin/node-version.js'
import {endQuietlyOnEpipe} from '../bin/stdout-pipe.js'

/**
 * Runs the CLI from the bundle. oclif gets package.json inline, with the `explicit` command
 * strategy pointing at this very file (whatever it is named now), whose COMMANDS export maps
 * every command id to its class; plugin hooks and the help class (HELP_CLASS, when package.json
 * names one) are exports of this file too. Plugins are not loaded from node_modules: their
 * commands and hooks are in the bundle.
 *
 * Must be called from a non-awaited async function, never with top-level await: oclif imports
 * this file to read COMMANDS, which would wait forever on an unsettled top-level await.
 * @param pjson ak's package.json
 * @param hooks event name → names of this file's exports that implement it
 */
export async function runBundledCli(pjson, hooks) {
  checkNodeVersion()
  endQuietlyOnEpipe()
  const file = fileURLToPath(import.meta.url)
  const target = `./${path.basename(file)}`
  const oclif = {
    ...pjson.oclif,
    plugins: [],
    commands: {strategy: 'explicit', target, identifier: 'COMMANDS'},
    hooks: Object.fromEntries(
      Object.entries(hooks).map(([event, identifiers]) => [event, identifiers.map((identifier) => ({target, identifier}))]),
    ),
    ...(pjson.oclif.helpClass ? {helpClass: {target, identifier: 'HELP_CLASS'}} : {}),
  }
  await execute({loadOptions: {root: path.dirname(file), pjson: {...pjson, oclif}}})
}

#!/usr/bin/env node
// Entry point of the installed `ak` command.
import module from 'node:module'

import {checkNodeVersion} from './node-version.js'
import {endQuietlyOnEpipe} from './stdout-pipe.js'

checkNodeVersion()
endQuietlyOnEpipe()
// Reuse V8's compiled code between starts (Node 22.1+): a server start loads hundreds of modules.
module.enableCompileCache?.()
const {execute} = await import('@oclif/core')
await execute({dir: import.meta.url})

#!/usr/bin/env node
// Entry point of the installed `ak` command.
import {checkNodeVersion} from './node-version.js'
import {endQuietlyOnEpipe} from './stdout-pipe.js'

checkNodeVersion()
endQuietlyOnEpipe()
const {execute} = await import('@oclif/core')
await execute({dir: import.meta.url})

#!/usr/bin/env -S node --import tsx
// Development entry point: runs the TypeScript sources directly, without a build.
import {checkNodeVersion} from './node-version.js'

checkNodeVersion()
const {execute} = await import('@oclif/core')
await execute({development: true, dir: import.meta.url})

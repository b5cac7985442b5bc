// Injected at the top of the one-file bundle: CommonJS globals that bundled CommonJS code expects.
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

globalThis.require ??= createRequire(import.meta.url)
globalThis.__filename ??= fileURLToPath(import.meta.url)
globalThis.__dirname ??= path.dirname(globalThis.__filename)

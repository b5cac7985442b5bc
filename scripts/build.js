// Builds dist/ from src/ with tsc. Run through `npm run build` so Node 22 is first on PATH.
import {execFileSync} from 'node:child_process'
import {rmSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
rmSync(path.join(root, 'dist'), {recursive: true, force: true})
execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
  cwd: root,
  stdio: 'inherit',
})

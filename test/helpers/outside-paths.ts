/**
 * The paths that lead outside a test workspace, which every file tool must refuse: shared by the
 * confinement tests of the plain tools and of edit's patch form, so both cover the same cases.
 */
import {symlink} from 'node:fs/promises'
import path from 'node:path'

/** Links inside the workspace (made by linkOutside): to a file outside, to the outside folder, and a dangling one to a name there. */
export const OUTSIDE_LINKS = ['to-secret', 'to-outside', 'dangling-out'] as const

/**
 * Makes OUTSIDE_LINKS in `ws`, pointing at `<outside>/secret.txt`, `outside` and
 * `<outside>/planted.txt` (which does not exist).
 */
export async function linkOutside(ws: string, outside: string): Promise<void> {
  await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'to-secret'))
  await symlink(outside, path.join(ws, 'to-outside'))
  await symlink(path.join(outside, 'planted.txt'), path.join(ws, 'dangling-out'))
}

/**
 * Every way the tests name something outside `ws`: a relative `..` path, an absolute path, a
 * sibling that shares the workspace's name as a prefix (`<ws>_evil`), and the links of linkOutside
 * (alone and as a folder).
 */
export function outsidePaths(ws: string, outside: string): string[] {
  return [
    '../outside/secret.txt',
    path.join(outside, 'secret.txt'),
    `${ws}_evil/x.txt`,
    'to-secret',
    'to-outside',
    'to-outside/secret.txt',
    'dangling-out',
  ]
}

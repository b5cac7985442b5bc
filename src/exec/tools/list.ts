import {lstat, readdir, readlink} from 'node:fs/promises'
import path from 'node:path'
import {z} from 'zod'

import {BadInputError, OutsideWorkspaceError, SymlinkLoopError} from '../../errors.js'
import {LIST_MAX_ENTRIES} from '../limits.js'
import type {Workspace} from '../workspace.js'
import {textField} from './input-fields.js'
import {defineTool} from './tool.js'

const inputSchema = z.object({
  path: textField('path', 'the folder to list, relative to the workspace ("." for its root)')
    .default('.')
    .describe('Folder to list, relative to the workspace (or absolute inside it). Default: the workspace root.'),
})

/** One line of a listing. */
export interface ListEntry {
  name: string
  kind: 'folder' | 'file' | 'symlink' | 'other'
  /** Size in bytes, for files. */
  sizeBytes?: number
  /** For symlinks: where the link points, workspace-relative, or undefined when outside. */
  linkTarget?: string
  /** For symlinks: whether the target is outside the workspace. */
  linkOutside?: boolean
  /** For symlinks: whether the link leads into a loop of links inside the workspace. */
  linkLoop?: boolean
}

/**
 * Formats a listing: names sorted by code point, folders ending in `/`, files with their size
 * in bytes, symlinks as links. Pure, for testing.
 */
export function formatListing(relative: string, entries: ListEntry[], total: number): string {
  const lines = entries.map((entry) => {
    switch (entry.kind) {
      case 'folder':
        return `${entry.name}/`
      case 'file':
        return `${entry.name}  ${entry.sizeBytes} bytes`
      case 'symlink':
        if (entry.linkLoop) return `${entry.name} -> (symlink loop: the links lead back to each other)`
        return entry.linkOutside
          ? `${entry.name} -> (symlink to a path outside the workspace)`
          : `${entry.name} -> ${entry.linkTarget} (symlink)`
      default:
        return `${entry.name}  (special file)`
    }
  })
  const header = `${relative === '.' ? '.' : relative}/ (${total} ${total === 1 ? 'entry' : 'entries'})`
  if (total > entries.length) {
    lines.push(
      `[${total - entries.length} more entries not shown: only the first ${entries.length} are listed. ` +
        `List a subfolder, or use search to find files by content.]`,
    )
  }
  if (total === 0) lines.push('(empty folder)')
  return [header, ...lines].join('\n')
}

/**
 * Describes where the symlink at `linkPath` (a real path inside the workspace) points. A target
 * that lies outside the workspace by its path alone is reported as outside without any look at
 * it, so listing never stats or resolves anything outside the workspace (DESIGN §4.2). A target
 * inside is resolved, which may still find that it leads outside through another link, or into
 * a loop of links (a loop met while the walk stands outside is reported as outside).
 */
export async function describeLink(
  workspace: Pick<Workspace, 'isInside' | 'resolve'>,
  linkPath: string,
): Promise<Pick<ListEntry, 'linkTarget' | 'linkOutside' | 'linkLoop'>> {
  const written = await readlink(linkPath)
  if (!workspace.isInside(path.resolve(path.dirname(linkPath), written))) return {linkOutside: true}
  try {
    // Resolved as written, not folded: `..` after a linked folder goes where the kernel takes it.
    const resolved = await workspace.resolve(path.isAbsolute(written) ? written : `${path.dirname(linkPath)}/${written}`)
    return {linkTarget: resolved.relative + (resolved.exists ? '' : ' (missing)'), linkOutside: false}
  } catch (error) {
    if (error instanceof SymlinkLoopError) return {linkLoop: true}
    if (error instanceof OutsideWorkspaceError || error instanceof BadInputError) return {linkOutside: true}
    throw error
  }
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The `list` tool: one folder's entries (DESIGN §4.3). */
export const listTool = defineTool({
  name: 'list',
  title: 'List a folder',
  description:
    'Lists one folder of the workspace (not recursive). Names are sorted; folders end in "/"; ' +
    'files show their size in bytes; a symlink is shown as a link to its workspace-relative target ' +
    '(a target outside the workspace is not described; a loop of links is shown as a loop). ' +
    `At most ${LIST_MAX_ENTRIES} entries are shown; the answer says how many more there are. ` +
    'Errors: the path is outside the workspace, does not exist, or is not a folder.',
  level: 'read',
  inputSchema,
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  describeTarget: (input) => input.path,
  async run(input, {workspace}) {
    const folder = await workspace.resolve(input.path, {mustExist: true})
    const info = await lstat(folder.real)
    if (!info.isDirectory()) {
      throw new BadInputError(`"${input.path}" is a file, not a folder. Use the read tool to read a file.`)
    }
    const names = (await readdir(folder.real)).sort(compareNames)
    const entries: ListEntry[] = []
    for (const name of names.slice(0, LIST_MAX_ENTRIES)) {
      const full = path.join(folder.real, name)
      let entry: ListEntry
      try {
        const st = await lstat(full)
        if (st.isSymbolicLink()) entry = {name, kind: 'symlink', ...(await describeLink(workspace, full))}
        else if (st.isDirectory()) entry = {name, kind: 'folder'}
        else if (st.isFile()) entry = {name, kind: 'file', sizeBytes: st.size}
        else entry = {name, kind: 'other'}
      } catch {
        continue // removed while listing
      }
      entries.push(entry)
    }
    return {text: formatListing(folder.relative, entries, names.length)}
  },
})

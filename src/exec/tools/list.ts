import {lstat, readdir, readlink} from 'node:fs/promises'
import {z} from 'zod'

import {AkError, OutsideWorkspaceError, SymlinkLoopError} from '../../errors.js'
import {displayName} from '../display-name.js'
import {type ConfinedFolder, withFolder} from '../files/confined-open.js'
import {explainFsError} from '../files/fs-errors.js'
import {LIST_MAX_ENTRIES} from '../limits.js'
import {joinBytes, MAX_SYMLINK_HOPS, type Workspace} from '../workspace.js'
import {textField} from './input-fields.js'
import {defineTool} from './tool.js'

const inputSchema = z.object({
  path: textField('path', 'the folder to list, relative to the workspace ("." for its root)')
    .default('.')
    .describe('Folder to list, relative to the workspace (or absolute inside it). Default: the workspace root.'),
})

/** One line of a listing. */
export interface ListEntry {
  /** The name in the display form (see display-name.ts). */
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
 * Formats a listing: entries in the order given (the tool sorts names by their bytes, which for
 * UTF-8 is code point order), folders ending in `/`, files with their size in bytes, symlinks as
 * links. `total` counts every entry of the folder, shown or not. Pure, for testing.
 */
export function formatListing(relative: string, entries: ListEntry[], total: number): string {
  const lines = entries.map((entry) => {
    switch (entry.kind) {
      case 'folder':
        return `${entry.name}/`
      case 'file':
        return `${entry.name}  ${entry.sizeBytes} bytes`
      case 'symlink':
        if (entry.linkLoop) return `${entry.name} -> (too many symbolic links: a loop, or a chain of more than ${MAX_SYMLINK_HOPS})`
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
        `List a subfolder, or use search with a glob (and no query) to find files by name.]`,
    )
  }
  if (total === 0) lines.push('(empty folder)')
  return [header, ...lines].join('\n')
}

/**
 * Describes where the symlink `name` of `folder` (a verified folder inside the workspace) points.
 * The target is judged as `Workspace.resolve` judges a path: a target that leaves the workspace
 * is reported as outside without any look at it, so listing never stats or resolves anything
 * outside (DESIGN §4.2). A target inside is resolved, which may still find that it leads outside
 * through another link, or into a loop of links.
 */
export async function describeLink(
  workspace: Pick<Workspace, 'resolveLinkTarget'>,
  folder: ConfinedFolder,
  name: Buffer,
): Promise<Pick<ListEntry, 'linkTarget' | 'linkOutside' | 'linkLoop'>> {
  const written = await readlink(folder.entry(name), {encoding: 'buffer'})
  try {
    const resolved = await workspace.resolveLinkTarget(joinBytes(folder.real, name), written)
    return {linkTarget: resolved.relative + (resolved.exists ? '' : ' (missing)'), linkOutside: false}
  } catch (error) {
    if (error instanceof SymlinkLoopError) return {linkLoop: true}
    if (error instanceof OutsideWorkspaceError || error instanceof AkError) return {linkOutside: true}
    throw error
  }
}

/** The `list` tool: one folder's entries (DESIGN §4.3). */
export const listTool = defineTool({
  name: 'list',
  title: 'List a folder',
  description:
    'Lists one folder of the workspace (not recursive). Names are sorted by their bytes (code point order for UTF-8); ' +
    'folders end in "/"; ' +
    'files show their size in bytes; a symlink is shown as a link to its workspace-relative target ' +
    '(a target outside the workspace is not described; a loop of links is shown as a loop). ' +
    `At most ${LIST_MAX_ENTRIES} entries are shown; the answer says how many more there are. ` +
    'A name that is not valid UTF-8 or holds control characters is shown escaped (\\xff for a byte, \\n, \\t, ' +
    '\\\\ for a backslash); every tool accepts that form back as a path. ' +
    'Errors: the path is outside the workspace, does not exist, or is not a folder.',
  level: 'read',
  inputSchema,
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  describeTarget: (input) => input.path,
  async run(input, {workspace}) {
    const target = await workspace.resolve(input.path, {mustExist: true})
    return withFolder(workspace, target.real, input.path, async (folder) => {
      const names = (
        await readdir(folder.self, {encoding: 'buffer'}).catch((error: unknown) => {
          throw explainFsError(error, input.path)
        })
      ).sort(Buffer.compare)
      const entries: ListEntry[] = []
      let vanished = 0
      for (const bytes of names.slice(0, LIST_MAX_ENTRIES)) {
        const name = displayName(bytes)
        let entry: ListEntry
        try {
          const st = await lstat(folder.entry(bytes))
          if (st.isSymbolicLink()) entry = {name, kind: 'symlink', ...(await describeLink(workspace, folder, bytes))}
          else if (st.isDirectory()) entry = {name, kind: 'folder'}
          else if (st.isFile()) entry = {name, kind: 'file', sizeBytes: st.size}
          else entry = {name, kind: 'other'}
        } catch {
          vanished++ // removed while listing
          continue
        }
        entries.push(entry)
      }
      return {text: formatListing(target.relative, entries, names.length - vanished)}
    })
  },
})

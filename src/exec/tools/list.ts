import {lstatSync, type Stats} from 'node:fs'
import {readlink} from 'node:fs/promises'
import {setImmediate as setImmediatePromise} from 'node:timers/promises'
import {z} from 'zod'

import {AkError, BadInputError, OutsideWorkspaceError, SymlinkLoopError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {displayName} from '../display-name.js'
import {type ConfinedFolder, withResolvedFolder} from '../files/confined-open.js'
import {type FolderEntry, folderPass, folderWindow} from '../folder-window.js'
import {explainFsError} from '../fs-errors.js'
import {LIST_MAX_ENTRIES} from '../limits.js'
import {joinBytes, MAX_SYMLINK_HOPS, type Workspace} from '../workspace.js'
import {textField, wholeNumberField} from './input-fields.js'
import {defineTool} from './tool.js'

const inputSchema = z.object({
  path: textField('path', 'the folder to list, relative to the workspace ("." for its root)')
    .default('.')
    .describe('Folder to list, relative to the workspace (or absolute inside it). Default: the workspace root.'),
  offset: wholeNumberField('offset', 'the first entry to show, counting from 1 in sorted order', 1, Number.MAX_SAFE_INTEGER)
    .default(1)
    .describe(`First entry to show, 1-based, in sorted order: a folder of more than ${LIST_MAX_ENTRIES} entries is listed in several calls. Default 1.`),
  limit: wholeNumberField('limit', 'how many entries to show; list a large folder in several calls using offset', 1, LIST_MAX_ENTRIES, 'entries')
    .default(LIST_MAX_ENTRIES)
    .describe(`How many entries to show, 1 to ${LIST_MAX_ENTRIES}. Default ${LIST_MAX_ENTRIES}.`),
})

/** `list`'s `outputSchema`: the entries shown and which part of the folder they are. */
export const listOutputSchema = z.object({
  path: z.string().describe('The folder, relative to the workspace ("." for its root).'),
  entries: z
    .array(
      z.object({
        name: z.string().describe('The name, escaped as the text shows it (\\xff for a byte, \\n, \\\\); every tool accepts it back.'),
        kind: z.enum(['folder', 'file', 'symlink', 'other']).describe('"other" is a device, pipe or socket.'),
        size_bytes: z.number().int().optional().describe('Files: the size in bytes.'),
        link_target: z.string().optional().describe('Symlinks inside the workspace: the target, workspace-relative (" (missing)" when it does not exist).'),
        link_outside: z.boolean().optional().describe('Symlinks: true when the target is outside the workspace (not described).'),
        link_loop: z.boolean().optional().describe('Symlinks: true when the link leads into a loop of links.'),
      }),
    )
    .describe('The entries shown, sorted by the bytes of their names.'),
  total: z.number().int().describe('Entries the folder has.'),
  first: z.number().int().describe('Position of the first entry shown, from 1 in sorted order.'),
  last: z.number().int().describe('Position of the last entry shown (first - 1 when none is).'),
  more: z.number().int().describe('Entries after the last one shown.'),
  next_offset: z.number().int().nullable().describe('The offset that lists the next entries; null when none are left.'),
})

/** The structured form of a listing (`list`'s outputSchema): what `formatListing` shows, as fields. Pure. */
export function structuredListing(relative: string, entries: ListEntry[], window: ListingWindow): z.infer<typeof listOutputSchema> {
  return {
    path: relative,
    entries: entries.map((entry) => ({
      name: entry.name,
      kind: entry.kind,
      ...(entry.sizeBytes === undefined ? {} : {size_bytes: entry.sizeBytes}),
      ...(entry.linkTarget === undefined ? {} : {link_target: entry.linkTarget}),
      ...(entry.linkOutside === undefined ? {} : {link_outside: entry.linkOutside}),
      ...(entry.linkLoop === undefined ? {} : {link_loop: entry.linkLoop}),
    })),
    ...window,
    next_offset: window.more > 0 ? window.last + 1 : null,
  }
}

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
 * Which part of a folder's sorted entries an answer shows. Positions count from 1 in sorted
 * order; `first` to `last` is the window asked for, whose entries removed while listing are left
 * out of `entries` and of `total`.
 */
export interface ListingWindow {
  /** Entries the folder has. */
  total: number
  /** Position of the first entry in the window. */
  first: number
  /** Position of the last entry in the window (`first - 1` for an empty folder). */
  last: number
  /** Entries after the window, not shown. */
  more: number
}

/**
 * Formats a listing: entries in the order given (the tool sorts names by their bytes, which for
 * UTF-8 is code point order), folders ending in `/`, files with their size in bytes, symlinks as
 * links. The header counts the folder's entries and, when the answer shows only part of them,
 * which; a note says where the next part starts. Pure, for testing.
 */
export function formatListing(relative: string, entries: ListEntry[], window: ListingWindow): string {
  const {total, first, last, more} = window
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
  const count = `${total} ${total === 1 ? 'entry' : 'entries'}`
  const isPart = first > 1 || more > 0
  const header = `${relative}/ (${isPart ? `${count}; ${first} to ${last} shown` : count})`
  if (more > 0) {
    lines.push(
      `[${more} more ${more === 1 ? 'entry' : 'entries'} not shown. Call list again with offset ${last + 1} for the next entries, ` +
        'or use search with a glob (and no query) to find files by name.]',
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

/** Entries whose `lstat` runs between two turns of the event loop. */
const LIST_STAT_BATCH_ENTRIES = 100

/**
 * The line of `found`, an entry of the verified `folder`: a folder, a special file or a symlink as
 * the listing typed it, a file with its size from `lstat` (synchronous: a batch of them is shorter
 * than a round trip to the thread pool each). An entry the listing could not type is typed by
 * `lstat`. Undefined when the entry was removed meanwhile.
 */
async function describeEntry(workspace: Workspace, folder: ConfinedFolder, found: FolderEntry): Promise<ListEntry | undefined> {
  const name = displayName(found.name)
  let type: FolderEntry['type'] = found.type
  let sizeBytes: number | undefined
  if (type === 'file' || type === 'unknown') {
    let st: Stats | undefined
    try {
      st = lstatSync(folder.entry(found.name), {throwIfNoEntry: false})
    } catch {
      st = undefined
    }
    if (!st) return undefined
    type = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'folder' : st.isFile() ? 'file' : 'other'
    sizeBytes = st.size
  }
  switch (type) {
    case 'folder':
      return {name, kind: 'folder'}
    case 'file':
      return {name, kind: 'file', sizeBytes}
    case 'symlink':
      try {
        return {name, kind: 'symlink', ...(await describeLink(workspace, folder, found.name))}
      } catch {
        return undefined
      }
    default:
      return {name, kind: 'other'}
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
    `At most ${LIST_MAX_ENTRIES} entries are shown per call (fewer with limit); the answer says how many more there are and which offset lists them. ` +
    'A name that is not valid UTF-8 or holds control characters is shown escaped (\\xff for a byte, \\n, \\t, ' +
    '\\\\ for a backslash); every tool accepts that form back as a path. ' +
    'The structured answer lists the same entries as fields (name, kind, size_bytes) with the paging (total, first, last, next_offset). ' +
    'Errors: the path is outside the workspace, does not exist, or is not a folder; offset is past the last entry.',
  level: 'read',
  inputSchema,
  argumentHints: {
    depth: 'list shows one folder; list a subfolder next, or use search with a glob (and no query) to find files at any depth.',
    recursive: 'list shows one folder; list a subfolder next, or use search with a glob (and no query) to find files at any depth.',
    dir_path: 'the argument is path.',
  },
  outputSchema: listOutputSchema,
  isTextTheAnswer: true,
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  describeTarget: (input) => input.path,
  async run(input, {workspace}) {
    return withResolvedFolder(workspace, input.path, async (folder, target) => {
      const window = await folderWindow(folderPass(folder.self, folder.info.size), input.offset, input.limit).catch((error: unknown) => {
        throw explainFsError(error, input.path)
      })
      const {total} = window
      if (input.offset > total && total > 0) {
        throw new BadInputError(
          `offset ${input.offset} is past the end of "${escapeControls(input.path)}", which has ${total} ${total === 1 ? 'entry' : 'entries'}. ` +
            `Use an offset from 1 to ${total}.`,
        )
      }
      const first = Math.min(input.offset, total + 1) // an empty folder is listed from any offset
      const entries: ListEntry[] = []
      let vanished = 0
      for (const [index, found] of window.entries.entries()) {
        if (index > 0 && index % LIST_STAT_BATCH_ENTRIES === 0) await setImmediatePromise()
        const entry = await describeEntry(workspace, folder, found)
        if (entry) entries.push(entry)
        else vanished++ // removed while listing
      }
      const last = first - 1 + window.entries.length
      const shown = {total: total - vanished, first, last, more: total - last}
      return {text: formatListing(target.relative, entries, shown), structured: structuredListing(target.relative, entries, shown)}
    })
  },
})

/**
 * What the change engine (change-engine.ts) is asked to do, and what it reports back: the one
 * vocabulary of every way the file tools change files (`edit`'s text replacement, its patch form).
 */
import type {PatchHunk} from './patch-parser.js'
import type {TextEditRequest} from './text-edit.js'

/** One change to one file, as a tool asks for it. Paths are as the caller gave them. */
export type FileOperation =
  /** A new file (`edit` with an empty old_text): refused when anything exists at the path. */
  | {kind: 'create'; path: string; contents: string}
  /** A patch's Add File: a new file, or a replacement of the file at the path (as Codex). */
  | {kind: 'add'; path: string; contents: string}
  /** `edit`'s literal text replacement. */
  | {kind: 'replace-text'; path: string; request: TextEditRequest}
  /** A patch's Update File: hunks applied, and the file moved to `moveTo` when given. */
  | {kind: 'update'; path: string; hunks: PatchHunk[]; moveTo?: string}
  /** A patch's Delete File: a file or a symlink (the link itself), never a folder. */
  | {kind: 'delete'; path: string}

/** What happened to one file. */
export interface FileOutcome {
  /** added: a new file (or a replaced one, see `replaced`); updated; moved (and perhaps updated); deleted. */
  action: 'added' | 'updated' | 'moved' | 'deleted'
  /** The file, relative to the workspace (for a move, where it is now). */
  path: string
  /** Where a moved file was. */
  from?: string
  /** An existing file at `path` was replaced (Add File over a file, Move to onto a file). */
  replaced: boolean
  /** The size of the file written, in bytes (0 for a deleted file). */
  bytes: number
  /** Hard links the changed file had; above 1, this path now has its own copy. */
  hardLinks: number
  /** The unified diff, within the answer's diff budget; empty when no budget was left. */
  diff: string
  /** For a text replacement: the occurrences replaced and the line of each (the first ones). */
  occurrences?: number
  lines?: number[]
  /** For an update: the line (in the old file) where each hunk applied. */
  hunkLines?: number[]
}

import {editTool} from './edit.js'
import {execCommandTool} from './exec-command.js'
import {listTool} from './list.js'
import {readTool} from './read.js'
import {searchTool} from './search.js'
import type {Level} from '../level.js'
import type {ExecTool} from './tool.js'
import {writeStdinTool} from './write-stdin.js'

/** Every AgentExec tool, in the order servers list them. Each level offers a prefix-closed subset. */
export const EXEC_TOOLS: ExecTool[] = [
  readTool,
  listTool,
  searchTool,
  editTool,
  execCommandTool,
  writeStdinTool,
] as unknown as ExecTool[]

/** The lowest level that offers the tool named `name`, or undefined for an unknown name. */
export function levelOfTool(name: string): Level | undefined {
  return EXEC_TOOLS.find((tool) => tool.name === name)?.level
}

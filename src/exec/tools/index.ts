import {listTool} from './list.js'
import type {ExecTool} from './tool.js'

/** Every AgentExec tool, in the order servers list them. Each level offers a prefix-closed subset. */
export const EXEC_TOOLS: ExecTool[] = [
  listTool,
] as unknown as ExecTool[]

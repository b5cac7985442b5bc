/**
 * ak's library entry (`import … from "@agentorg/ak"`).
 */
export {Workspace} from './exec/workspace.js'
export {LEVELS, type Level} from './exec/level.js'
export {AK_VERSION} from './version.js'

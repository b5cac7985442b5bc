// Entry of the one-file AgentExec bundle dist/agentexec-bundle.cjs (scripts/build.js): the server
// and the library, with no code run at import. Its users check the Node.js version first, then
// load it: the launcher dist/agentexec.js (scripts/agentexec-launcher.js), which carries it after
// its own code, the CommonJS library entry dist/exec.cjs (scripts/agentexec-library.cjs) and
// bin/run.js (`ak exec serve`). The server's parts are imported dynamically, so a start evaluates
// only the modules the part it runs needs.
import {config as zodConfig} from 'zod/v4/core'

/** Runs the `agentexec` command with `args` (see runAgentExec in src/agentexec-main.ts). */
export async function runAgentExec(args) {
  serverOwnsProcess()
  return (await import('../dist/agentexec-main.js')).runAgentExec(args)
}

/**
 * `ak exec serve` through this bundle's copy of the server, for bin/run.js (see serveDirectly in
 * src/agentexec-main.ts): true when it served, false when oclif must handle the arguments.
 */
export async function serveDirectly(args) {
  serverOwnsProcess()
  return (await import('../dist/agentexec-main.js')).serveDirectly(args)
}

/**
 * Settings for a process that runs the server and nothing else, made before any of the server's
 * modules is loaded (never by the library, whose host owns its process): zod checks objects without
 * compiling a checker for each object schema (its `jitless` setting). zod compiles one, with `new
 * Function`, at the first check by each object schema, for repeated checks of many objects; a
 * server checks a few small objects per request, and code made with `new Function` is compiled at
 * every start, outside the code cache, so that compiling cost the `initialize` answer about 5 ms.
 */
function serverOwnsProcess() {
  zodConfig({jitless: true})
}

/**
 * The library (src/index.ts) loaded at once, for the CommonJS library entry dist/exec.cjs
 * (scripts/agentexec-library.cjs), which cannot await.
 */
export function requireLibrary() {
  return require('../dist/index.js')
}

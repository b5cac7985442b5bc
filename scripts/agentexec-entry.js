// Entry of the one-file AgentExec bundle dist/agentexec-bundle.cjs (scripts/build.js): the server
// and the library, with no code run at import. Its users check the Node.js version first, then
// load it: the launcher dist/agentexec.js (scripts/agentexec-launcher.js), which carries it after
// its own code, the CommonJS library entry dist/exec.cjs (scripts/agentexec-library.cjs) and
// bin/run.js (`ak exec serve`). The server's parts are imported dynamically, so a start evaluates
// only the modules the part it runs needs.

/** Runs the `agentexec` command with `args` (see runAgentExec in src/agentexec-main.ts). */
export async function runAgentExec(args) {
  return (await import('../dist/agentexec-main.js')).runAgentExec(args)
}

/**
 * `ak exec serve` through this bundle's copy of the server, for bin/run.js (see serveDirectly in
 * src/agentexec-main.ts): true when it served, false when oclif must handle the arguments.
 */
export async function serveDirectly(args) {
  return (await import('../dist/agentexec-main.js')).serveDirectly(args)
}

/**
 * The library (src/index.ts) loaded at once, for the CommonJS library entry dist/exec.cjs
 * (scripts/agentexec-library.cjs), which cannot await.
 */
export function requireLibrary() {
  return require('../dist/index.js')
}

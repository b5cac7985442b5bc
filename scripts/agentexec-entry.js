// Entry of the one-file AgentExec bundle dist/agentexec-bundle.mjs (scripts/build.js): the server
// and the library, with no code run at import. Its users check the Node.js version first, then
// import it: the launcher dist/agentexec.js (scripts/agentexec-launcher.js), the library entry
// dist/exec.js (scripts/agentexec-library.js) and bin/run.js (`ak exec serve`).
export {runAgentExec, serveDirectly} from '../dist/agentexec-main.js'
export {createAgentExec, LEVELS, SANDBOX_MODES} from '../dist/index.js'

// The MCP SDK server's platform shims (`@modelcontextprotocol/server/_shims`) as dist/agentexec-bundle.cjs
// needs them. The SDK's own Node shims also export its default JSON Schema validator, built on
// ajv (about 230 KB), which the server uses only to check a client's answer to an elicitation
// request; the AgentExec server never sends one, so its bundle (server and library) leaves ajv out and
// starts and idles lighter. Anything that would validate through it fails with a clear error.
import process from 'node:process'

/** Stands in for the SDK's ajv-based validator; the AgentExec server never validates with it. */
export class DefaultJsonSchemaValidator {
  getValidator() {
    throw new Error('JSON Schema validation (for elicitation results) is not part of the AgentExec bundle, whose server never sends an elicitation request.')
  }
}

export {process}

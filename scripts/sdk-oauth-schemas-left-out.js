// Stand-ins for the MCP SDK's OAuth schemas in dist/agentexec-bundle.cjs (see sdkWithoutOAuthSchemas
// in scripts/build.js). The SDK server builds every OAuth and OpenID metadata schema when it is
// imported (about 7 ms of a start) only to register them in its table of spec types; AgentExec
// authenticates HTTP with its own bearer token (or leaves it to the host) and never parses OAuth
// metadata, so the bundle registers these instead. Any use throws, saying why.

/**
 * A stand-in for the SDK schema `name`: any method called on it (parse, safeParse, extend…)
 * throws an Error saying the schema was left out.
 * @param name the schema's name in the SDK, e.g. "OAuthMetadataSchema"
 */
export function leftOutSchema(name) {
  const fail = () => {
    throw new Error(`${name} (the MCP SDK's OAuth schemas) is not part of the AgentExec bundle, which never uses OAuth.`)
  }
  return new Proxy(
    {},
    {
      // `then` undefined keeps the stand-in from passing for a promise.
      get: (_target, property) => (property === 'then' || typeof property === 'symbol' ? undefined : fail),
    },
  )
}

import type {StandardSchemaWithJSON} from '@modelcontextprotocol/server'
import type {z} from 'zod'

/**
 * A tool's output schema as the SDK gets it: listed in `tools/list` exactly as `schema` says, but
 * not checked against each answer. The SDK's McpServer validates every result's
 * `structuredContent` against the tool's `outputSchema` before sending it (the `validate` of its
 * Standard Schema); for ak's own tools that re-checks what ak's typed code built, and cost 6 % of
 * a 2000-line `read`'s server time. The JSON Schema clients see, and check answers against, is
 * the same (`jsonSchema` is `schema`'s own); the tests check ak's answers with the official
 * clients, which validate them.
 * @param schema a zod schema whose output type the tool's code produces (`satisfies` or `z.infer`)
 */
export function advertisedOutputSchema<Schema extends z.ZodType>(schema: Schema): StandardSchemaWithJSON<z.input<Schema>, z.output<Schema>> {
  const standard = schema['~standard']
  return {
    '~standard': {
      version: 1,
      vendor: 'ak',
      validate: (value: unknown) => ({value: value as z.output<Schema>}),
      jsonSchema: standard.jsonSchema,
    },
  }
}

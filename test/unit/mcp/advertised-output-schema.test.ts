import {expect} from 'chai'
import {z} from 'zod'

import {advertisedOutputSchema} from '../../../src/mcp/advertised-output-schema.js'
import {listOutputSchema} from '../../../src/exec/tools/list.js'
import {readOutputSchema} from '../../../src/exec/tools/read.js'

describe('advertisedOutputSchema: ak\'s own output schemas, listed but not re-checked on the server', () => {
  for (const [name, schema] of [
    ['read', readOutputSchema],
    ['list', listOutputSchema],
  ] as const) {
    it(`lists ${name}'s outputSchema as the same JSON Schema`, () => {
      const options = {target: 'draft-2020-12' as const}
      expect(advertisedOutputSchema(schema)['~standard'].jsonSchema.output(options)).to.deep.equal(schema['~standard'].jsonSchema.output(options))
      expect(advertisedOutputSchema(schema)['~standard'].jsonSchema.input(options)).to.deep.equal(schema['~standard'].jsonSchema.input(options))
    })
  }

  it('passes an answer on as it is, without parsing it (zod would have failed this one)', () => {
    const answer = {path: 'a.txt', kind: 'not a kind'}
    expect(readOutputSchema.safeParse(answer).success).to.equal(false)
    const result = advertisedOutputSchema(readOutputSchema)['~standard'].validate(answer) as {value?: unknown; issues?: unknown}
    expect(result.issues).to.equal(undefined)
    expect(result.value).to.equal(answer)
  })

  it('keeps a schema without output-only parts the same for input', () => {
    const schema = z.object({n: z.number().int()})
    expect(advertisedOutputSchema(schema)['~standard'].jsonSchema).to.equal(schema['~standard'].jsonSchema)
  })
})

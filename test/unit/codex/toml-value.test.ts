import {expect} from 'chai'
import {parse} from 'smol-toml'

import {tomlKey, tomlValue} from '../../../src/codex/toml-value.js'

describe('toml values on one line', () => {
  const values: unknown[] = [
    '',
    'plain',
    'quote " and backslash \\ and newline\n and tab\t',
    'control \u0001 \u001b \u007f and unicode é 漢字 🙂',
    "single ' quote",
    0,
    -42,
    2 ** 53 - 1,
    1.5,
    -0.25,
    true,
    false,
    [],
    ['a', 1, true],
    [['nested'], []],
    {},
    {key: 'value', 'needs quoting': 1, 'dotted.key': {inner: [1, 2]}},
  ]
  for (const value of values) {
    it(`reads back ${JSON.stringify(value)} unchanged`, () => {
      const document = parse(`v = ${tomlValue(value)}`) as {v: unknown}
      expect(JSON.parse(JSON.stringify(document.v))).to.deep.equal(value)
    })
  }

  it('quotes keys that are not bare', () => {
    expect(tomlKey('enabled_tools')).to.equal('enabled_tools')
    expect(tomlKey('a.b')).to.equal('"a.b"')
    expect(tomlKey('')).to.equal('""')
  })

  it('refuses values TOML cannot hold', () => {
    expect(() => tomlValue(undefined)).to.throw(TypeError)
    expect(() => tomlValue(null)).to.throw(TypeError)
  })
})

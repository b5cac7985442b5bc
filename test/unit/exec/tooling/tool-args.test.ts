import {expect} from 'chai'

import {BadInputError} from '../../../../src/errors.js'
import {parseToolArgs} from '../../../../src/exec/tooling/tool-args.js'

describe('parseToolArgs', () => {
  it('keeps __proto__ and constructor as arguments, so that the tool refuses them like any other it does not define', () => {
    const args = parseToolArgs(['__proto__={"path":"x"}', 'constructor=1'])
    expect(Object.keys(args)).to.deep.equal(['__proto__', 'constructor'])
    expect(JSON.stringify(args)).to.equal('{"__proto__":{"path":"x"},"constructor":1}')
    expect(() => parseToolArgs(['constructor=1', 'constructor=2'])).to.throw(BadInputError, '--arg constructor is given twice')
  })

  it('passes a value that is not JSON as a plain string', () => {
    expect(parseToolArgs(['path=src/app', 'pattern=foo bar'])).to.deep.equal({path: 'src/app', pattern: 'foo bar'})
  })

  it('passes numbers, booleans, null, arrays and objects as JSON', () => {
    expect(parseToolArgs(['n=500', 'b=true', 'z=null', 'list=["a",1]', 'obj={"k":{"x":2}}'])).to.deep.equal({
      n: 500,
      b: true,
      z: null,
      list: ['a', 1],
      obj: {k: {x: 2}},
    })
  })

  it('keeps a quoted number as a string', () => {
    expect(parseToolArgs(['text="42"'])).to.deep.equal({text: '42'})
  })

  it('splits on the first = only and accepts an empty value', () => {
    expect(parseToolArgs(['expr=a=b', 'empty='])).to.deep.equal({expr: 'a=b', empty: ''})
  })

  it('refuses a pair without a key or without =', () => {
    expect(() => parseToolArgs(['path'])).to.throw(BadInputError, /key=value/)
    expect(() => parseToolArgs(['=x'])).to.throw(BadInputError, /key=value/)
  })

  it('refuses a key given twice', () => {
    expect(() => parseToolArgs(['path=a', 'path=b'])).to.throw(BadInputError, /twice/)
  })
})

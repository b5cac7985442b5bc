import {expect} from 'chai'

import {CheckedReadBuffer, type RejectedMessage, lastTopLevelId, topLevelId} from '../../../src/mcp/checked-read-buffer.js'

describe('topLevelId', () => {
  it('reads the id of the top-level object from the start of a message cut short', () => {
    expect(topLevelId('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"argu')).to.equal(7)
    expect(topLevelId('{"jsonrpc":"2.0", "id" : "a\\"b","method"')).to.equal('a"b')
    expect(topLevelId('{"params":{"id":5,"x":"}{"},"id":-3,"me')).to.equal(-3)
  })

  it('finds nothing when the id is not in the part given, or is not a string or a number', () => {
    expect(topLevelId('{"method":"id","params":{"id":5,"text":"xxxx')).to.equal(undefined)
    expect(topLevelId('{"id":{"a":1},"method":"ping"}')).to.equal(undefined)
    expect(topLevelId('{"id":null,"method":"ping"}')).to.equal(undefined)
  })
})

describe('lastTopLevelId', () => {
  it('reads the id of the top-level object from the end of a message whose start was cut off', () => {
    expect(lastTopLevelId('xxxx"},"id":5,"method":"ping"}')).to.equal(5)
    expect(lastTopLevelId('xx\\"}, "id" : "a\\"b"}\r')).to.equal('a"b')
    expect(lastTopLevelId('zz"},"id":6,"params":{"id":99,"q":"\\"id\\":7"}}')).to.equal(6)
  })

  it('finds nothing when the top-level id is not in the part given', () => {
    expect(lastTopLevelId('xxxx","id":5}}')).to.equal(undefined)
    expect(lastTopLevelId('xxxx"},"method":"ping"}')).to.equal(undefined)
    expect(lastTopLevelId('{"id":5},"method":"ping"}')).to.equal(undefined)
  })
})

describe('CheckedReadBuffer at the end of its input', () => {
  it('reads a last line without a line break, and answers a last line too long to buffer', () => {
    const rejected: RejectedMessage[] = []
    const buffer = new CheckedReadBuffer((message) => rejected.push(message), 100)
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":"last","method":"ping"}'))
    expect(buffer.readMessage()).to.equal(null)
    expect(buffer.finish()).to.deep.include({id: 'last', method: 'ping'})
    expect(buffer.finish()).to.equal(null)
    buffer.append(Buffer.from(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"p":"${'z'.repeat(500)}`))
    expect(buffer.finish()).to.equal(null)
    expect(rejected.map((message) => (message.answer as {id: unknown}).id)).to.deep.equal(['big'])
  })
})

describe('CheckedReadBuffer with a line over its limit', () => {
  function reader(limit: number) {
    const rejected: RejectedMessage[] = []
    return {buffer: new CheckedReadBuffer((message) => rejected.push(message), limit), rejected}
  }

  it('drops the line as it streams in, answers it by its id, and reads the lines around it', () => {
    const {buffer, rejected} = reader(100)
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"'))
    expect(buffer.readMessage()).to.deep.include({id: 1, method: 'ping'})
    expect(buffer.readMessage()).to.equal(null)
    for (let index = 0; index < 50; index++) buffer.append(Buffer.from('y'.repeat(1000)))
    expect(rejected).to.have.length(0)
    buffer.append(Buffer.from('"}}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n'))
    expect(rejected).to.have.length(1)
    expect(rejected[0]!.answer).to.deep.include({id: 2})
    expect(rejected[0]!.logLine).to.match(/^rejected a message of 500\d\d bytes \(id 2\)/)
    expect(buffer.readMessage()).to.deep.include({id: 3})
  })

  it('answers a long line that arrives whole, reading an id that ends it', () => {
    const {buffer, rejected} = reader(100)
    buffer.append(Buffer.from(`{"method":"ping","params":{"x":"${'z'.repeat(200)}","id":9},"id":"last"}\n`))
    expect(buffer.readMessage()).to.equal(null)
    expect(rejected.map((message) => (message.answer as {id: unknown}).id)).to.deep.equal(['last'])
  })
})

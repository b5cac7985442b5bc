import {expect} from 'chai'

import {
  commandAnswer,
  commandAnswerSchema,
  cutMiddle,
  renderCommandAnswer,
} from '../../../../src/exec/terminal/answer.js'
import {OutputBuffer} from '../../../../src/exec/terminal/output-buffer.js'
import {isWellFormed} from '../../../helpers/text.js'

function buffered(text: string, capacity = 1_000_000) {
  const buffer = new OutputBuffer(capacity)
  buffer.append(text)
  return buffer.take()
}

describe('cutMiddle', () => {
  it('returns output that fits the budget unchanged', () => {
    expect(cutMiddle(buffered('short\n'), 100)).to.equal('short\n')
    expect(cutMiddle(buffered('x'.repeat(100)), 100)).to.equal('x'.repeat(100))
  })

  it('keeps the head and tail halves of the budget around a marker counting the cut', () => {
    const text = 'H'.repeat(60) + 'M'.repeat(80) + 'T'.repeat(60)
    const cut = cutMiddle(buffered(text), 100)
    expect(cut.startsWith('H'.repeat(50) + '\n[... 100 characters (0 line breaks) cut from the middle of 200;')).to.equal(true)
    expect(cut.endsWith('...]\n' + 'T'.repeat(50))).to.equal(true)
    expect(cut).not.to.contain('M')
  })

  it('counts characters as code points, so an emoji is one character', () => {
    const emoji = '\u{1F600}'
    const line = `${emoji.repeat(20_000)}\n`
    expect(cutMiddle(buffered(line), 28_000)).to.equal(line)
    const cut = cutMiddle(buffered(line), 1000)
    expect(cut).to.match(/^(\u{1F600}){500}\n\[\.\.\. 19001 characters \(0 line breaks\) cut from the middle of 20001; /u)
    expect(cut).to.match(/\.\.\.\]\n(\u{1F600}){499}\n$/u)
    expect(isWellFormed(cut)).to.equal(true)
  })

  it('counts dropped astral characters as code points when the buffer overflowed', () => {
    const emoji = '\u{1F600}'
    const output = buffered(`${emoji.repeat(1000)}X${emoji.repeat(1000)}`, 400)
    expect(output.droppedChars).to.equal(2001 - 100 - 100)
    const cut = cutMiddle(output, 100)
    expect(cut).to.contain('[... 1901 characters (0 line breaks) cut from the middle of 2001;')
    expect([...cut.replace(/\n\[\.\.\..*\.\.\.\]\n/, '')]).to.have.length(100)
  })

  it('counts the line breaks it cuts', () => {
    const lines = Array.from({length: 100}, (_, index) => `line ${index}`).join('\n')
    const cut = cutMiddle(buffered(lines), 40)
    const match = /\[\.\.\. (\d+) characters \((\d+) line breaks\) cut/.exec(cut)!
    const kept = cut.replace(/\n\[\.\.\..*\.\.\.\]\n/, '')
    expect(Number(match[1])).to.equal(lines.length - kept.length)
    expect(Number(match[2])).to.equal((lines.match(/\n/g)?.length ?? 0) - (kept.match(/\n/g)?.length ?? 0))
  })

  it('counts what the buffer dropped as cut', () => {
    const buffer = new OutputBuffer(100)
    for (let index = 0; index < 1000; index++) buffer.append('abcdefghi\n')
    const cut = cutMiddle(buffer.take(), 40)
    expect(cut).to.match(/^abcdefghi\nabcdefghi\n\n\[\.\.\. 9960 characters \(996 line breaks\) cut from the middle of 10000;/)
    expect(cut.endsWith('abcdefghi\nabcdefghi\n')).to.equal(true)
  })

  it('never splits a surrogate pair', () => {
    const text = '\u{1F600}'.repeat(100)
    for (let budget = 3; budget < 20; budget++) {
      expect(isWellFormed(cutMiddle(buffered(text), budget))).to.equal(true)
      expect(isWellFormed(cutMiddle(buffered(text, 30), budget))).to.equal(true)
    }
  })
})

describe('the answer of exec_command and write_stdin', () => {
  it('renders exactly four fields in order, seconds with three decimals', () => {
    const answer = commandAnswer({exitCode: 0, elapsedMs: 1204.4, sessionId: 'none', output: buffered('hi\n'), maxOutputTokens: 10})
    expect(renderCommandAnswer(answer)).to.equal('exit_code: 0\nseconds: 1.204\nsession_id: none\ntext:\nhi\n')
    expect(Object.keys(answer)).to.deep.equal(['exit_code', 'seconds', 'session_id', 'text'])
    expect(answer.seconds).to.equal(1.204)
  })

  it('says running with the session id while the command runs', () => {
    const answer = commandAnswer({exitCode: 'running', elapsedMs: 250, sessionId: 'abc', output: buffered(''), maxOutputTokens: 10})
    expect(renderCommandAnswer(answer)).to.equal('exit_code: running\nseconds: 0.250\nsession_id: abc\ntext:\n')
    expect(commandAnswerSchema.safeParse(answer).success).to.equal(true)
  })

  it('cuts the text past max_output_tokens × 4 characters', () => {
    const answer = commandAnswer({exitCode: 1, elapsedMs: 1, sessionId: 'none', output: buffered('x'.repeat(1000)), maxOutputTokens: 10})
    expect(answer.text).to.match(/^x{20}\n\[\.\.\. 960 characters/)
  })

  it('matches the declared output schema, and the schema refuses other exit codes', () => {
    expect(commandAnswerSchema.safeParse({exit_code: 143, seconds: 0.5, session_id: 'none', text: ''}).success).to.equal(true)
    expect(commandAnswerSchema.safeParse({exit_code: 'done', seconds: 0.5, session_id: 'none', text: ''}).success).to.equal(false)
  })
})

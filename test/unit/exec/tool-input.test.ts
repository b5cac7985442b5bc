import {expect} from 'chai'

import {BadInputError} from '../../../src/errors.js'
import {ignoredArgumentsNote, parseToolInput} from '../../../src/mcp/tool-input.js'
import {editTool} from '../../../src/exec/tools/edit.js'
import {execCommandTool} from '../../../src/exec/tools/exec-command.js'
import {readTool} from '../../../src/exec/tools/read.js'
import {searchTool} from '../../../src/exec/tools/search.js'
import type {ExecTool} from '../../../src/exec/tools/tool.js'
import {writeStdinTool} from '../../../src/exec/tools/write-stdin.js'

function refusal(tool: ExecTool, args: unknown): string {
  try {
    parseToolInput(tool, args)
  } catch (error) {
    expect(error).to.be.instanceOf(BadInputError)
    return (error as Error).message
  }
  throw new Error(`${tool.name} accepted ${JSON.stringify(args)}`)
}

describe('parseToolInput', () => {
  describe('argument names', () => {
    it('refuses a name the tool does not define, listing the accepted ones', () => {
      const message = refusal(editTool as unknown as ExecTool, {path: 'f.txt', old_text: 'line2', new_text: 'CHANGED', dryRun: true})
      expect(message).to.match(/^edit has no argument "dryRun", so the call did nothing\. Its arguments are: path, old_text, new_text, replace_all, patch\./)
      expect(message).to.contain('dryRun: edit has no dry run')
    })

    it('names every unknown argument and the hint for each it has', () => {
      const message = refusal(readTool as unknown as ExecTool, {path: 'f.txt', tail: 2, head: 1, bogus: 0})
      expect(message).to.match(/^read has no arguments "tail", "head", "bogus", so the call did nothing\. Its arguments are: path, offset, limit\./)
      expect(message).to.contain('tail: for the last lines, pass a negative offset')
      expect(message).to.contain('head: for the first lines, pass limit')
    })

    it('accepts the exec_command fields of Codex that ak ignores, and reports them', () => {
      const parsed = parseToolInput(execCommandTool as unknown as ExecTool, {cmd: 'true', tty: true, login: false, shell: '/bin/zsh'})
      expect(parsed.input).to.deep.equal({cmd: 'true'})
      expect(parsed.ignored).to.deep.equal(['tty', 'login', 'shell'])
      expect(refusal(execCommandTool as unknown as ExecTool, {cmd: 'true', sandbox_permissions: 'x'})).to.contain(
        'Its arguments are: cmd, workdir, yield_time_ms, max_output_tokens.',
      )
      expect(refusal(writeStdinTool as unknown as ExecTool, {session_id: '1', tty: true})).to.match(/^write_stdin has no argument "tty"/)
    })

    it('writes one note naming every ignored argument and why it had no effect', () => {
      expect(ignoredArgumentsNote(execCommandTool, [])).to.equal('')
      expect(ignoredArgumentsNote(execCommandTool, ['tty', 'login'])).to.match(
        /^\[Note: tty, login had no effect \(tty: commands run over pipes, never in a terminal; login: [^;]+\)\.\]$/,
      )
    })

    it('refuses arguments that are not an object', () => {
      expect(refusal(readTool as unknown as ExecTool, ['a'])).to.match(/^The arguments of read must be an object of named fields: path, offset, limit\.$/)
    })
  })

  describe('numbers and booleans sent as strings', () => {
    it('takes a string that is exactly a whole number for a number field', () => {
      expect(parseToolInput(readTool as unknown as ExecTool, {path: 'a', offset: '5', limit: '3'}).input).to.deep.equal({path: 'a', offset: 5, limit: 3})
      expect(parseToolInput(execCommandTool as unknown as ExecTool, {cmd: 'x', yield_time_ms: '500'}).input).to.deep.equal({cmd: 'x', yield_time_ms: 500})
      expect(parseToolInput(searchTool as unknown as ExecTool, {query: 'x', max_results: '7'}).input).to.include({max_results: 7})
    })

    it('takes "true" and "false" for a true/false field', () => {
      expect(parseToolInput(searchTool as unknown as ExecTool, {query: 'x', regex: 'true', case_sensitive: 'false'}).input).to.include({
        regex: true,
        case_sensitive: false,
      })
    })

    it('refuses any other string, naming the field', () => {
      for (const offset of ['5.5', ' 5', '5 ', '+5', '0x10', '1e3', 'five', '']) {
        expect(refusal(readTool as unknown as ExecTool, {path: 'a', offset}), offset).to.match(/^offset must be a number: the first line to show/)
      }
      expect(refusal(searchTool as unknown as ExecTool, {query: 'x', regex: 'yes'})).to.match(/^regex must be true or false/)
      expect(refusal(searchTool as unknown as ExecTool, {query: 'x', regex: 'True'})).to.match(/^regex must be true or false/)
    })

    it('keeps strings as strings in text fields', () => {
      expect(parseToolInput(editTool as unknown as ExecTool, {path: '5', old_text: 'true', new_text: '7'}).input).to.include({
        path: '5',
        old_text: 'true',
        new_text: '7',
      })
    })
  })

  describe('messages', () => {
    it('gives each wrong field its own line', () => {
      const message = refusal(readTool as unknown as ExecTool, {path: 'a', offset: 0, limit: 'x'})
      expect(message.split('\n')).to.deep.equal([
        message.split('\n')[0],
        'limit must be a number: how many lines to show; read a long file in several calls using offset.',
      ])
      expect(message.split('\n')[0]).to.match(/^offset .*\.$/)
    })

    it('says that a required field is missing', () => {
      expect(refusal(editTool as unknown as ExecTool, {path: 'a', new_text: 'x'})).to.equal(
        'old_text is missing. old_text must be a string: the exact text to replace ("" to create a new file).',
      )
    })
  })
})

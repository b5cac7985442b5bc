import {expect} from 'chai'

import {
  appendTable,
  lineEnding,
  parseTomlDocument,
  removeTables,
  setTableKeys,
  tableText,
  tablesOf,
} from '../../../src/codex/toml-edit.js'

/** The headers of the tables `tablesOf` finds for `keyPath`. */
function headers(text: string, keyPath: string[]): string[] {
  return tablesOf(parseTomlDocument(text), keyPath).map((table) => tableText(text, table).split(/\r?\n/)[0] as string)
}

/** `text` with the tables at `keyPath` removed. */
function removed(text: string, keyPath: string[]): string {
  return removeTables(text, tablesOf(parseTomlDocument(text), keyPath))
}

/** `text` with `edits` set in the first table at `keyPath`. */
function setKeys(text: string, keyPath: string[], edits: Array<{key: string; value: string}>): string {
  const [table] = tablesOf(parseTomlDocument(text), keyPath)
  return setTableKeys(text, table!, edits, lineEnding(text))
}

describe('toml-edit (editing config.toml as text)', () => {
  it('parses TOML 1.1, such as an inline table over several lines', () => {
    const document = parseTomlDocument('server = {\n  command = "x",\n}\n')
    expect(document.body[0].body).to.have.length(1)
  })

  it('finds the table written as a header and its subtables, not arrays of tables, other tables or dotted keys', () => {
    const text = [
      '[mcp_servers]',
      'inline.command = "a"',
      '[mcp_servers.agents]',
      'command = "ak"',
      '[[mcp_servers.agents.list]]',
      'y = 1',
      '[mcp_servers.agents.env]',
      'K = "v"',
      '[mcp_servers.agentsx]',
      '[profiles.agents]',
      '',
    ].join('\n')
    expect(headers(text, ['mcp_servers', 'agents'])).to.deep.equal(['[mcp_servers.agents]', '[mcp_servers.agents.env]'])
    expect(headers(text, ['mcp_servers', 'inline'])).to.deep.equal([])
  })

  it('gives the whole lines of a table, from its header through its last key', () => {
    const text = 'a = 1\n[t] # mine\nx = 1 # one\ny = 2\n\n[u]\n'
    expect(headers(text, ['t'])).to.deep.equal(['[t] # mine'])
    const [table] = tablesOf(parseTomlDocument(text), ['t'])
    expect(tableText(text, table!)).to.equal('[t] # mine\nx = 1 # one\ny = 2\n')
  })

  describe('setTableKeys', () => {
    it('replaces the value of a key, bare or quoted, keeping its spacing and comment', () => {
      const text = '[t]\ncommand   =  "old" # mine\n"args" = []\n'
      expect(setKeys(text, ['t'], [{key: 'command', value: '"new"'}, {key: 'args', value: '["x"]'}])).to.equal(
        '[t]\ncommand   =  "new" # mine\n"args" = ["x"]\n',
      )
    })

    it('adds a missing key on a line of its own after the last key, not for a dotted key that starts with its name', () => {
      const text = '[t]\nenv.X = "1"\nother = 2\n\n[u]\nz = 3\n'
      expect(setKeys(text, ['t'], [{key: 'env', value: '{}'}])).to.equal('[t]\nenv.X = "1"\nother = 2\nenv = {}\n\n[u]\nz = 3\n')
    })

    it('adds a key right after the header of an empty table', () => {
      expect(setKeys('[t]\n[u]\n', ['t'], [{key: 'a', value: '1'}])).to.equal('[t]\na = 1\n[u]\n')
    })

    it('writes the comment of an added key on the line above it, and none over an existing key', () => {
      const edits = [{key: 'a', value: '2', comment: 'why a'}, {key: 'b', value: '3', comment: 'why b'}]
      expect(setKeys('[t]\na = 1 # mine\n', ['t'], edits)).to.equal('[t]\na = 2 # mine\n# why b\nb = 3\n')
    })

    it('adds keys at the end of a file without a final newline, which then still has none', () => {
      const text = '[t]\na = 1'
      expect(setKeys(text, ['t'], [{key: 'b', value: '2'}, {key: 'c', value: '3'}])).to.equal('[t]\na = 1\nb = 2\nc = 3')
    })

    it('adds keys to a table followed by another in a file without a final newline, on lines of their own', () => {
      expect(setKeys('[t]\na = 1\n[u]\nb = 2', ['t'], [{key: 'c', value: '3'}])).to.equal('[t]\na = 1\nc = 3\n[u]\nb = 2')
    })

    it('leaves the end of a file without a final newline alone when it only replaces values', () => {
      expect(setKeys('[t]\na = 1', ['t'], [{key: 'a', value: '2'}])).to.equal('[t]\na = 2')
    })

    it('adds keys with the line ending of the document', () => {
      expect(setKeys('[t]\r\na = 1\r\n', ['t'], [{key: 'b', value: '2'}])).to.equal('[t]\r\na = 1\r\nb = 2\r\n')
    })
  })

  describe('appendTable and removeTables', () => {
    for (const text of ['', 'a = 1\n', 'a = 1', '# only a comment\n\n', 'x = 1\r\n']) {
      it(`appends a table after one blank line and removes it again, giving back ${JSON.stringify(text)}`, () => {
        const eol = lineEnding(text)
        const appended = appendTable(text, ['[t]', 'k = 1'], eol)
        expect(appended).to.equal(text === '' ? `[t]${eol}k = 1${eol}` : text.endsWith('\n') ? `${text}${eol}[t]${eol}k = 1${eol}` : `${text}${eol}${eol}[t]${eol}k = 1`)
        expect(removed(appended, ['t'])).to.equal(text)
      })
    }

    it('removes a table and its subtables, given in any order, keeping what lies between and around them', () => {
      const text = 'a = 1\n\n[t]\nx = 1\n[t.sub]\ny = 2\n\n[u]\nz = 3\n\n[t.other]\nw = 4\n\n[v]\n'
      const document = parseTomlDocument(text)
      const tables = tablesOf(document, ['t']).reverse()
      expect(removeTables(text, tables)).to.equal('a = 1\n\n[u]\nz = 3\n\n[v]\n')
    })

    it('removes the blank line before a table only where a blank line or the end follows', () => {
      expect(removed('[a]\nx = 1\n\n[t]\ny = 1\n[c]\nz = 1\n', ['t'])).to.equal('[a]\nx = 1\n\n[c]\nz = 1\n')
      expect(removed('[a]\nx = 1\n\n[t]\ny = 1\n# after\n', ['t'])).to.equal('[a]\nx = 1\n\n# after\n')
      expect(removed('a = 1\n\nb = 2\n[t]\nx = 1\n', ['t'])).to.equal('a = 1\n\nb = 2\n')
      expect(removed('\n[t]\nx = 1\n', ['t'])).to.equal('')
      expect(removed('\r\n[t]\r\nx = 1\r\n', ['t'])).to.equal('')
    })

    it('keeps the newlines around a removed table that is followed by another in a file without a final newline', () => {
      expect(removed('a = 1\n[t]\nx = 1\n[u]\ny = 2', ['t'])).to.equal('a = 1\n[u]\ny = 2')
    })

    it('removes the newline before a removed table that ended the file without one', () => {
      expect(removed('a = 1\n[t]\nx = 1', ['t'])).to.equal('a = 1')
      expect(removed('a = 1\r\n[t]\r\nx = 1', ['t'])).to.equal('a = 1')
    })
  })

  it('takes the line ending of the first line', () => {
    expect(['a\r\nb\n', 'a\nb\r\n', '\nb\r\n', 'no newline', '\r\n'].map(lineEnding)).to.deep.equal(['\r\n', '\n', '\n', '\n', '\r\n'])
  })
})

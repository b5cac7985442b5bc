import type {Tool} from '@modelcontextprotocol/client'
import {expect} from 'chai'

import {formatToolCatalog} from '../../../../src/exec/tooling/tool-catalog.js'

describe('formatToolCatalog', () => {
  const tool = {
    name: 'list',
    title: 'List a folder',
    description: 'Lists one folder.',
    inputSchema: {
      type: 'object' as const,
      properties: {
        path: {type: 'string', default: '.', description: 'Folder to list.'},
        glob: {anyOf: [{type: 'string'}, {type: 'array', items: {type: 'string'}}]},
        mode: {enum: ['fast', 'full']},
      },
      required: ['mode'],
    },
    annotations: {readOnlyHint: true},
  } as Tool

  it('prints the name, title, lowest level, description and one line per argument', () => {
    expect(formatToolCatalog('files', [tool]).split('\n')).to.deep.equal([
      'AgentExec tools at level files (1):',
      '',
      'list — List a folder (from level read)',
      '  Lists one folder.',
      '  arguments:',
      '    path: string, optional, default "." — Folder to list.',
      '    glob: string | array of string, optional',
      '    mode: "fast" | "full", required',
      '  read-only',
    ])
  })

  it('wraps a long description to the catalog width', () => {
    const long: Tool = {...tool, description: 'word '.repeat(60).trim()}
    const lines = formatToolCatalog('read', [long]).split('\n').filter((line) => line.startsWith('  word'))
    expect(lines.length).to.be.greaterThan(1)
    for (const line of lines) expect(line.length).to.be.at.most(100)
  })
})

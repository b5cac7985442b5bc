import {expect} from 'chai'
import {readFile, readdir} from 'node:fs/promises'
import path from 'node:path'

import {HTTP_MAX_SESSIONS} from '../../../src/exec/http/legacy-sessions.js'
import * as budget from '../../../src/exec/descriptor-budget.js'
import * as limits from '../../../src/exec/limits.js'
import {MAX_EXTRA_WORKERS} from '../../../src/exec/search/worker-pool.js'
import {MAX_RUNNING_COMMANDS} from '../../../src/exec/terminal/limits.js'
import {REPO_ROOT} from '../../helpers/clients.js'

describe('documented limits of read, list, search and edit', () => {
  it('docs/tools.md quotes the same values as src/exec/limits.ts', async () => {
    const doc = (await readFile(path.join(REPO_ROOT, 'docs', 'tools.md'), 'utf8')).replace(/\s+/g, ' ')
    const quoted: Array<[string, string]> = [
      ['READ_DEFAULT_LIMIT_LINES', `default ${limits.READ_DEFAULT_LIMIT_LINES}`],
      ['READ_MAX_LIMIT_LINES', `at most ${limits.READ_MAX_LIMIT_LINES})`],
      ['READ_MAX_LINE_CHARS', `longer than ${limits.READ_MAX_LINE_CHARS} characters`],
      ['READ_MAX_ANSWER_CHARS', `at most ${limits.READ_MAX_ANSWER_CHARS} characters`],
      ['READ_CHUNK_BYTES', `${limits.READ_CHUNK_BYTES / 1024} KiB chunk`],
      ['READ_MAX_CLIPPED_SCAN_BYTES', `at most ${limits.READ_MAX_CLIPPED_SCAN_BYTES / 1024 ** 2} MiB of it`],
      ['BINARY_SNIFF_BYTES', `first ${limits.BINARY_SNIFF_BYTES} bytes`],
      ['EDIT_MAX_FILE_BYTES', `at most ${limits.EDIT_MAX_FILE_BYTES} bytes`],
      ['EDIT_MAX_DIFF_CHARS', `after ${limits.EDIT_MAX_DIFF_CHARS} characters`],
      ['EDIT_MAX_BYTES_IN_FLIGHT', `at most ${limits.EDIT_MAX_BYTES_IN_FLIGHT} bytes`],
      ['READ_TAIL_COUNT_MAX_BYTES', `take at most ${limits.READ_TAIL_COUNT_MAX_BYTES / 1024 ** 2} MiB they are counted`],
      ['LIST_MAX_ENTRIES', `At most ${limits.LIST_MAX_ENTRIES} entries an answer`],
      ['LIST_READ_BATCH_ENTRIES', `read in batches of ${limits.LIST_READ_BATCH_ENTRIES} entries`],
      ['LIST_MAX_HELD_NAMES', `keeps at most ${limits.LIST_MAX_HELD_NAMES} entries at once`],
      ['LIST_SAMPLE_NAMES', `samples ${limits.LIST_SAMPLE_NAMES} names`],
      ['LIST_SMALL_FOLDER_BYTES', `is at most ${limits.LIST_SMALL_FOLDER_BYTES} bytes is read in one call`],
      ['SEARCH_MAX_ANSWER_CHARS', `an answer holds at most ${limits.SEARCH_MAX_ANSWER_CHARS} characters of matching lines`],
      ['READ_MAX_IMAGE_BYTES', `Images of at most ${limits.READ_MAX_IMAGE_BYTES} bytes (${limits.READ_MAX_IMAGE_BYTES / 1024 ** 2} MiB)`],
      ['READ_MAX_IMAGE_SIDE_PX', `wider or taller than ${limits.READ_MAX_IMAGE_SIDE_PX} pixels`],
      ['EDIT_NEAR_MATCH_MAX_CHARS', `Files over ${limits.EDIT_NEAR_MATCH_MAX_CHARS / 1024 ** 2} Mi characters are not searched`],
      ['EDIT_PATCH_MAX_OPERATIONS', `at most ${limits.EDIT_PATCH_MAX_OPERATIONS} operations a patch`],
      ['EDIT_PATCH_MAX_CHARS', `${limits.EDIT_PATCH_MAX_CHARS} characters of patch text`],
      ['EDIT_PATCH_MAX_BYTES', `${limits.EDIT_PATCH_MAX_BYTES} bytes (${limits.EDIT_PATCH_MAX_BYTES / 1024 ** 2} MiB) of file content read and written in all`],
    ]
    for (const [name, text] of quoted) expect(doc, name).to.contain(text)
  })

  it('docs/confinement.md and docs/tools.md quote the limits of files opened by their name', async () => {
    const confinement = (await readFile(path.join(REPO_ROOT, 'docs', 'confinement.md'), 'utf8')).replace(/\s+/g, ' ')
    const tools = (await readFile(path.join(REPO_ROOT, 'docs', 'tools.md'), 'utf8')).replace(/\s+/g, ' ')
    const quoted: Array<[string, string]> = [
      ['EDIT_LOCK_WAIT_MS', `at most ${limits.EDIT_LOCK_WAIT_MS / 1000} s, with pauses`],
      ['EDIT_LOCK_STALE_MS', `older than ${limits.EDIT_LOCK_STALE_MS / 1000} s, is stale`],
      ['EDIT_LOCK_MAX_BYTES', `| ${limits.EDIT_LOCK_MAX_BYTES} bytes |`],
      ['IGNORE_FILE_MAX_BYTES', `up to ${limits.IGNORE_FILE_MAX_BYTES / 1024} KiB and uses its lines of up to ${limits.IGNORE_FILE_MAX_LINE_BYTES} bytes`],
      ['IGNORE_FILE_MAX_LINE_BYTES', `| ${limits.IGNORE_FILE_MAX_BYTES / 1024} KiB, lines of at most ${limits.IGNORE_FILE_MAX_LINE_BYTES} bytes |`],
    ]
    for (const [name, text] of quoted) expect(confinement, name).to.contain(text)
    expect(tools, 'IGNORE_FILE_MAX_BYTES').to.contain(
      `read up to ${limits.IGNORE_FILE_MAX_BYTES / 1024} KiB, and only its lines of at most ${limits.IGNORE_FILE_MAX_LINE_BYTES} bytes are used`,
    )
  })

  it('docs/terminal.md quotes the descriptor budget of src/exec/descriptor-budget.ts', async () => {
    const doc = (await readFile(path.join(REPO_ROOT, 'docs', 'terminal.md'), 'utf8')).replace(/\s+/g, ' ')
    const quoted: Array<[string, string]> = [
      ['BASE_DESCRIPTORS', `an idle server takes ${budget.BASE_DESCRIPTORS};`],
      ['DESCRIPTORS_PER_COMMAND', `each running command holds ${budget.DESCRIPTORS_PER_COMMAND} (its`],
      ['DESCRIPTORS_TO_START_COMMAND', `needs ${budget.DESCRIPTORS_TO_START_COMMAND} more free for a moment`],
      ['DESCRIPTORS_PER_SEARCH_WORKER', `each search worker takes ${budget.DESCRIPTORS_PER_SEARCH_WORKER} (its`],
      ['SEARCH_MAX_WORKERS', `runs at most ${limits.SEARCH_MAX_WORKERS + MAX_EXTRA_WORKERS} (${limits.SEARCH_MAX_WORKERS}, plus ${MAX_EXTRA_WORKERS}`],
      ['DESCRIPTORS_PER_HTTP_SESSION', `each HTTP session takes ${budget.DESCRIPTORS_PER_HTTP_SESSION} (its`],
      ['FULL_SERVER_DESCRIPTORS', `${MAX_RUNNING_COMMANDS} commands at once and a full search pool, needs ${budget.FULL_SERVER_DESCRIPTORS} descriptors over stdio`],
      ['HTTP_MAX_SESSIONS', `and ${budget.descriptorsNeeded(MAX_RUNNING_COMMANDS, HTTP_MAX_SESSIONS)} with the ${HTTP_MAX_SESSIONS} HTTP sessions`],
      ['MAX_RUNNING_COMMANDS', `room for fewer than the ${MAX_RUNNING_COMMANDS} commands`],
    ]
    for (const [name, text] of quoted) expect(doc, name).to.contain(text)
  })

  it('docs/http.md quotes the HTTP limits of src/exec/limits.ts and the session limit', async () => {
    const doc = (await readFile(path.join(REPO_ROOT, 'docs', 'http.md'), 'utf8')).replace(/\s+/g, ' ')
    const quoted: Array<[string, string]> = [
      ['HTTP_HEADERS_TIMEOUT_MS', `request headers are not complete within ${limits.HTTP_HEADERS_TIMEOUT_MS / 1000} s,`],
      ['HTTP_REQUEST_TIMEOUT_MS', `whole request is not within ${limits.HTTP_REQUEST_TIMEOUT_MS / 1000} s,`],
      ['HTTP_MAX_CONNECTIONS', `at most ${limits.HTTP_MAX_CONNECTIONS} connections are open at once`],
      ['HTTP_MAX_SESSIONS', `At most ${HTTP_MAX_SESSIONS} such sessions are open at once`],
      ['HTTP_MAX_BODY_BYTES', `Bodies over ${limits.HTTP_MAX_BODY_BYTES / 1024 ** 2} MiB get 413`],
      ['HTTP_SESSION_IDLE_MS', `after ${limits.HTTP_SESSION_IDLE_MS / 60_000} minutes with no request and no open event stream`],
    ]
    for (const [name, text] of quoted) expect(doc, name).to.contain(text)
  })

  it('no doc writes a limit\'s constant name the way it writes environment variables', async () => {
    const names = [...Object.keys(limits), 'HTTP_MAX_SESSIONS']
    const docs = ['README.md', ...(await readdir(path.join(REPO_ROOT, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => path.join('docs', name))]
    for (const doc of docs) {
      const text = await readFile(path.join(REPO_ROOT, doc), 'utf8')
      for (const name of names) expect(text, `${doc} quotes ${name}, which is a constant, not a setting`).not.to.contain(`\`${name}\``)
    }
  })
})

import {Ajv2020} from 'ajv/dist/2020.js'
import {expect} from 'chai'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {READ_MAX_IMAGE_BYTES, READ_MAX_IMAGE_SIDE_PX} from '../../src/exec/limits.js'
import {CLIENT_LINES, type TestClient, type ToolCallAnswer, connectStdio} from '../helpers/clients.js'
import {makeGif, makeJpeg, makePng, makeWebp} from '../helpers/images.js'
import {HIGHEST_LEVEL} from '../helpers/levels.js'

/** The images the tests write, with what read must say of them. */
const IMAGES = [
  {file: 'shot.png', bytes: makePng(31, 17), mimeType: 'image/png', format: 'png', name: 'PNG', width: 31, height: 17},
  {file: 'photo.jpg', bytes: makeJpeg(1024, 768, 5000), mimeType: 'image/jpeg', format: 'jpeg', name: 'JPEG', width: 1024, height: 768},
  {file: 'anim.gif', bytes: makeGif(40, 30), mimeType: 'image/gif', format: 'gif', name: 'GIF', width: 40, height: 30},
  // No extension: the format is told by the bytes.
  {file: 'diagram', bytes: makeWebp(800, 600), mimeType: 'image/webp', format: 'webp', name: 'WebP', width: 800, height: 600},
]

type ListedTool = Awaited<ReturnType<TestClient['listTools']>>[number]

for (const line of CLIENT_LINES) {
  describe(`images and structured answers through ak exec serve, client ${line}`, function () {
    let ws: string
    let client: TestClient
    let tools: ListedTool[]
    const ajv = new Ajv2020({strict: false})

    /** Calls a tool that must succeed, and checks its structuredContent against the listed outputSchema. */
    const ok = async (name: string, args: Record<string, unknown>): Promise<ToolCallAnswer & {structured: Record<string, unknown>}> => {
      const answer = await client.call(name, args)
      expect(answer.isError, `${name} ${JSON.stringify(args)}: ${answer.text}`).to.equal(false)
      const schema = tools.find((tool) => tool.name === name)?.outputSchema
      expect(schema, `${name} declares an outputSchema`).to.not.equal(undefined)
      expect(answer.structured, `${name} returns structuredContent`).to.not.equal(undefined)
      const validate = ajv.compile(schema as object)
      expect(validate(answer.structured), `${name} structuredContent: ${ajv.errorsText(validate.errors)}`).to.equal(true)
      return answer as ToolCallAnswer & {structured: Record<string, unknown>}
    }
    const fails = async (name: string, args: Record<string, unknown>) => {
      const answer = await client.call(name, args)
      expect(answer.isError, `${name} ${JSON.stringify(args)} should fail: ${answer.text}`).to.equal(true)
      expect(answer.structured, 'a tool error carries no structuredContent').to.equal(undefined)
      return answer.text
    }

    before(async function () {
      this.timeout(60_000)
      ws = await mkdtemp(path.join(tmpdir(), 'ak-structured-'))
      for (const image of IMAGES) await writeFile(path.join(ws, image.file), image.bytes)
      await writeFile(path.join(ws, 'huge.png'), makePng(8, 8, READ_MAX_IMAGE_BYTES))
      await writeFile(path.join(ws, 'wide.gif'), makeGif(READ_MAX_IMAGE_SIDE_PX + 1, 10))
      await writeFile(path.join(ws, 'cut.png'), makePng(8, 8).subarray(0, 20))
      await writeFile(path.join(ws, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>\n')
      await writeFile(path.join(ws, 'notes.txt'), 'alpha\nbeta\ngamma\n')
      await writeFile(path.join(ws, 'blob.bin'), Buffer.from([1, 2, 0, 3]))
      client = await connectStdio(line, ['exec', 'serve', '--workspace', ws, '--level', HIGHEST_LEVEL])
      // Listing first also lets the client compile each outputSchema, which it then checks every answer against.
      tools = await client.listTools()
    })

    after(async () => {
      await client?.close()
      await rm(ws, {recursive: true, force: true})
    })

    it('declares an outputSchema on every tool', () => {
      for (const tool of tools) expect(tool.outputSchema, tool.name).to.deep.include({type: 'object'})
    })

    for (const image of IMAGES) {
      it(`returns a ${image.name} file as image content byte for byte, with one line of text and its description`, async () => {
        const answer = await ok('read', {path: image.file})
        const images = answer.content.filter((block) => block.type === 'image')
        expect(images).to.have.length(1)
        expect(images[0]?.mimeType).to.equal(image.mimeType)
        expect(Buffer.from(images[0]?.data ?? '', 'base64').equals(image.bytes), 'the same bytes').to.equal(true)
        expect(answer.text).to.equal(`${image.file}: ${image.name} image, ${image.width}×${image.height} pixels, ${image.bytes.length} bytes.`)
        expect(answer.structured).to.deep.equal({
          path: image.file,
          kind: 'image',
          format: image.format,
          mime_type: image.mimeType,
          width: image.width,
          height: image.height,
          bytes: image.bytes.length,
        })
      })
    }

    it('refuses an image over the size limit, naming the limit and how to shrink it at the terminal level', async () => {
      const text = await fails('read', {path: 'huge.png'})
      expect(text).to.match(new RegExp(`^"huge.png" is a PNG image of \\d+ bytes; read returns images of at most ${READ_MAX_IMAGE_BYTES} bytes`))
      expect(text).to.contain('at the terminal level').and.contain("convert 'huge.png' -resize '1600x1600>' 'huge-small.png'")
      expect(text.length, 'never a huge answer').to.be.below(1000)
    })

    it('refuses an image wider or taller than the host limit', async () => {
      expect(await fails('read', {path: 'wide.gif'})).to.match(
        new RegExp(`^"wide.gif" is a GIF image of ${READ_MAX_IMAGE_SIDE_PX + 1}×10 pixels; read returns images of at most ${READ_MAX_IMAGE_SIDE_PX} pixels`),
      )
    })

    it('says a PNG whose header is cut short cannot be shown', async () => {
      expect(await fails('read', {path: 'cut.png'})).to.equal(
        '"cut.png" starts like a PNG image, but its header is cut short (the file ends after 20 bytes, inside its IHDR header), ' +
          'so it cannot be shown as an image. Check the file (it may still be being written, or be damaged); list shows its size.',
      )
    })

    it('refuses offset or limit with an image and says why', async () => {
      for (const args of [{offset: 2}, {limit: 5}, {offset: -1}]) {
        expect(await fails('read', {path: 'shot.png', ...args})).to.equal(
          '"shot.png" is a PNG image; read returns an image whole, so offset and limit (which count lines of text) do not apply. ' +
            'Call read again with path alone.',
        )
      }
    })

    it('reads an SVG as text and still refuses other binary files', async () => {
      const svg = await ok('read', {path: 'logo.svg'})
      expect(svg.content.map((block) => block.type)).to.deep.equal(['text'])
      expect(svg.structured).to.include({kind: 'text', first_line: 1, last_line: 1})
      expect(await fails('read', {path: 'blob.bin'})).to.contain('looks like a binary file')
    })

    it('gives read\'s window as fields: the lines, their numbers and where to continue', async () => {
      const head = await ok('read', {path: 'notes.txt', limit: 2})
      expect(head.text).to.equal('     1\talpha\n     2\tbeta\n[More lines follow. Shown: lines 1 to 2. Continue with offset=3.]')
      expect(head.structured).to.deep.equal({
        path: 'notes.txt',
        kind: 'text',
        lines: ['alpha', 'beta'],
        clipped_lines: [],
        first_line: 1,
        last_line: 2,
        total_lines: null,
        next_offset: 3,
        stopped_by: 'limit',
        numbered_from_end: false,
      })
      const tail = await ok('read', {path: 'notes.txt', offset: -1})
      expect(tail.structured).to.include({first_line: 3, last_line: 3, total_lines: 3, next_offset: null, stopped_by: 'end_of_file'})
    })

    it('gives list\'s entries and paging as fields', async () => {
      const answer = await ok('list', {path: '.', limit: 2})
      expect(answer.structured).to.deep.equal({
        path: '.',
        entries: [
          {name: 'anim.gif', kind: 'file', size_bytes: IMAGES[2]?.bytes.length},
          {name: 'blob.bin', kind: 'file', size_bytes: 4},
        ],
        total: 10,
        first: 1,
        last: 2,
        more: 8,
        next_offset: 3,
      })
    })

    it('gives search\'s matches, or the matching paths, and whether it stopped early', async () => {
      const lines = await ok('search', {query: 'a', glob: '*.txt', max_results: 2})
      expect(lines.structured).to.deep.include({
        path: '.',
        mode: 'lines',
        matches: [
          {path: 'notes.txt', line: 1, text: 'alpha'},
          {path: 'notes.txt', line: 2, text: 'beta'},
        ],
        stopped_early: true,
        stopped_by: 'max_results',
      })
      const files = await ok('search', {glob: '*.svg'})
      expect(files.structured).to.deep.equal({path: '.', mode: 'files', paths: ['logo.svg'], stopped_early: false, stopped_by: null, unreadable: []})
    })

    it('gives edit\'s path, action, occurrences and diff as fields', async () => {
      const created = await ok('edit', {path: 'new/plan.md', old_text: '', new_text: 'one\ntwo\n'})
      expect(created.structured).to.include({path: 'new/plan.md', action: 'created', occurrences: 0, bytes: 8, hard_links: 1})
      expect(created.structured.diff).to.be.a('string').and.contain('+two')
      const edited = await ok('edit', {path: 'new/plan.md', old_text: 'two', new_text: 'three'})
      expect(edited.structured).to.deep.include({path: 'new/plan.md', action: 'edited', occurrences: 1, lines: [2], bytes: 10, hard_links: 1})
      expect(edited.text.endsWith(edited.structured.diff as string), 'the same diff as the text').to.equal(true)
    })

    it('gives the terminal tools\' four fields', async () => {
      const started = await ok('exec_command', {cmd: 'read line; echo "got $line"', yield_time_ms: 300})
      expect(started.structured).to.include({exit_code: 'running'})
      const ended = await ok('write_stdin', {session_id: started.structured.session_id, chars: 'hi\n', yield_time_ms: 5000})
      expect(ended.structured).to.include({exit_code: 0, session_id: 'none', text: 'got hi\n'})
    })
  })
}

describe('a client that shows its model structuredContent instead of the text (Codex)', function () {
  let ws: string
  let client: TestClient

  before(async function () {
    this.timeout(60_000)
    ws = await mkdtemp(path.join(tmpdir(), 'ak-text-first-'))
    await writeFile(path.join(ws, 'notes.txt'), 'alpha\n')
    await writeFile(path.join(ws, 'shot.png'), makePng(3, 2))
    client = await connectStdio('v1 (2025 era)', ['exec', 'serve', '--workspace', ws, '--level', HIGHEST_LEVEL], {clientName: 'codex-mcp-client'})
  })

  after(async () => {
    await client?.close()
    await rm(ws, {recursive: true, force: true})
  })

  it('gets read, list, search and edit without an outputSchema, and the terminal tools with theirs', async () => {
    const tools = await client.listTools()
    const withSchema = tools.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name)
    expect(withSchema).to.deep.equal(tools.filter((tool) => ['exec_command', 'write_stdin'].includes(tool.name)).map((tool) => tool.name))
  })

  it('gets the text alone, and an image as image content, so its model reads what every other model reads', async () => {
    const text = await client.call('read', {path: 'notes.txt'})
    expect(text).to.deep.include({isError: false, text: '     1\talpha', structured: undefined})
    const image = await client.call('read', {path: 'shot.png'})
    expect(image.structured).to.equal(undefined)
    expect(image.content.map((block) => block.type)).to.deep.equal(['text', 'image'])
    const command = await client.call('exec_command', {cmd: 'echo hi'})
    expect(command.structured).to.include({exit_code: 0, text: 'hi\n'})
  })
})

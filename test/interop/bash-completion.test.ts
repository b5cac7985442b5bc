import {expect} from 'chai'
import {execFileSync, spawnSync} from 'node:child_process'
import {appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT, RUN_JS} from '../helpers/clients.js'

const PTY_BASH = path.join(REPO_ROOT, 'test', 'helpers', 'pty_bash.py')

/** The shell block under a heading of a Markdown file, as a reader would copy it. */
function shBlock(file: string, heading: string): string {
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8')
  const section = text.slice(text.indexOf(`\n${heading}\n`))
  const block = /```sh\n([\s\S]*?)```/.exec(section)
  if (!block?.[1]) throw new Error(`${file} has no sh block under "${heading}"`)
  return block[1]
}

/** A python3 to drive the pseudo-terminal, or a failure saying what to install. */
function python(): string {
  const found = spawnSync('python3', ['--version'])
  if (found.status !== 0) throw new Error('These tests need python3 (for its pty module): install Python 3, e.g. apt-get install python3.')
  return 'python3'
}

describe('bash completion', function () {
  this.timeout(120_000)
  let home: string
  let env: NodeJS.ProcessEnv
  let script: string

  before(() => {
    home = mkdtempSync(path.join(tmpdir(), 'ak-bash-completion-'))
    const bin = path.join(home, 'bin')
    mkdirSync(bin)
    symlinkSync(RUN_JS, path.join(bin, 'ak'))
    const {XDG_CACHE_HOME: _ignored, ...rest} = process.env
    env = {...rest, HOME: home, PATH: [bin, process.env.PATH].join(path.delimiter), TERM: 'xterm', INPUTRC: '/dev/null'}
    // The documented set-up, as a user runs it: write the completion files, add the set-up line.
    execFileSync('bash', ['-euc', shBlock('docs/diagnostics.md', '## Help and shell completion')], {cwd: home, env, stdio: 'pipe'})
    script = path.join(home, '.cache', 'ak', 'autocomplete', 'functions', 'bash', 'ak.bash')
  })

  after(() => rmSync(home, {recursive: true, force: true}))

  /**
   * COMPREPLY of ak's completion function for the words of a command line as readline splits
   * them (`--level=f` is `--level`, `=`, `f`), the last word being the one under the cursor.
   */
  function complete(...words: string[]): string[] {
    const program = 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ak_autocomplete; printf "%s\\n" "${COMPREPLY[@]}"'
    const output = execFileSync('bash', ['-c', program, 'complete', script, 'ak', ...words], {encoding: 'utf8', env})
    return output.split('\n').filter(Boolean)
  }

  describe('the completion function', () => {
    it('offers each topic and command once', () => {
      expect(complete('')).to.deep.equal(['autocomplete', 'codex-agent-runtime', 'doctor', 'exec', 'help', 'version'])
      expect(complete('exec', '')).to.deep.equal(['call', 'config', 'history', 'serve', 'tools', 'undo'])
      expect(complete('help', 'exec', 's')).to.deep.equal(['serve'])
    })

    it('completes flags after a flag that took a value, whatever the value', () => {
      expect(complete('exec', 'serve', '--workspace', '/tmp', '--l')).to.deep.equal(['--level'])
      expect(complete('exec', 'serve', '--workspace', 'foo', '--l')).to.deep.equal(['--level'])
      expect(complete('exec', 'serve', '-w', 'a b', '--h')).to.deep.equal(['--http', '--help'])
      expect(complete('exec', 'serve', '--http', '127.0.0.1', ':', '0', '--le')).to.deep.equal(['--level'])
      expect(complete('exec', 'call', 'list', '--arg', 'path', '=', 'src', '--l')).to.deep.equal(['--level'])
    })

    it('completes the values of --level and --client, in both flag forms', () => {
      expect(complete('exec', 'serve', '--level', '')).to.deep.equal(['read', 'files', 'terminal'])
      expect(complete('exec', 'tools', '-l', 't')).to.deep.equal(['terminal'])
      expect(complete('exec', 'config', '--client', '')).to.deep.equal(['codex', 'claude', 'vscode', 'gemini', 'opencode', 'cursor', 'windsurf', 'zed'])
      expect(complete('exec', 'serve', '--level', '=', 'f')).to.deep.equal(['files'])
      expect(complete('exec', 'serve', '--level', '=')).to.deep.equal(['read', 'files', 'terminal'])
      expect(complete('exec', 'serve', '--level=f')).to.deep.equal(['--level=files'])
      expect(complete('autocomplete', 'b')).to.deep.equal(['bash'])
    })

    it('leaves path flags to file name completion', () => {
      expect(complete('exec', 'serve', '--workspace', '')).to.deep.equal([])
      expect(complete('doctor', '--codex-home', '/t')).to.deep.equal([])
    })

    it('offers the top-level flags before any command', () => {
      expect(complete('--')).to.deep.equal(['--help', '--version'])
      expect(complete('-')).to.include.members(['-h', '-v'])
    })
  })

  it('prints the set-up command the docs give, which adds the set-up line once however often it runs', () => {
    const printed = execFileSync('ak', ['autocomplete', 'bash'], {cwd: home, env, encoding: 'utf8'})
    const command = printed.split('\n').find((line) => line.includes('>> ~/.bashrc'))?.trim()
    expect(command, printed).to.equal("grep -qs '# ak autocomplete setup' ~/.bashrc || ak autocomplete script bash >> ~/.bashrc")
    expect(shBlock('docs/diagnostics.md', '## Help and shell completion')).to.contain(command)
    for (let run = 0; run < 2; run++) execFileSync('bash', ['-euc', command as string], {cwd: home, env, stdio: 'pipe'})
    const bashrc = readFileSync(path.join(home, '.bashrc'), 'utf8')
    expect(bashrc.split('# ak autocomplete setup')).to.have.length(2)
    expect(bashrc).to.match(/# ak autocomplete setup\n+$/)
  })

  it('names the shells it knows when it cannot tell which one runs', () => {
    const result = spawnSync('ak', ['autocomplete'], {cwd: home, env: {...env, SHELL: '/usr/bin/fish'}, encoding: 'utf8'})
    expect(result.status).to.equal(2)
    expect(result.stderr).to.contain('ak cannot set up completion for the shell "fish". Name one: ak autocomplete bash, ak autocomplete zsh, ak autocomplete powershell.')
  })

  describe('in an interactive bash', () => {
    before(() => {
      // The set-up line must end its line, or the next line appended lands inside its comment.
      expect(readFileSync(path.join(home, '.bashrc'), 'utf8')).to.match(/\n$/)
      // A stand-in `ak` that shows the words it was given, appended the way users add lines.
      appendFileSync(path.join(home, '.bashrc'), `ak() { printf '<%s>' "$@"; printf '\\n'; }\nPS1='$ '\n`)
    })

    function typeInBash(keys: string[]): string {
      const result = spawnSync(python(), [PTY_BASH, JSON.stringify(keys)], {env, encoding: 'utf8', timeout: 100_000})
      expect(result.status, result.stderr).to.equal(0)
      return result.stdout
    }

    it('completes lines typed with Tab, printing nothing but the completions', () => {
      const transcript = typeInBash([
        'ak exec serve --workspace /tmp --l\t',
        '\n',
        'ak exec serve --workspace foo --l\t',
        '\n',
        'ak exec serve --level t\t',
        '\n',
        'ak exec config --client vs\t',
        '\n',
        'ak exec serve --level=f\t',
        '\n',
        'ak ex\tse\t',
        '\n',
      ])
      expect(transcript).to.contain('<exec><serve><--workspace></tmp><--level>')
      expect(transcript).to.contain('<exec><serve><--workspace><foo><--level>')
      expect(transcript).to.contain('<exec><serve><--level><terminal>')
      expect(transcript).to.contain('<exec><config><--client><vscode>')
      expect(transcript).to.contain('<exec><serve><--level=files>')
      expect(transcript).to.contain('<exec><serve>\r\n')
      expect(transcript).not.to.match(/sed:|grep:|command not found|syntax error/)
    })

    it('lists each topic once on a double Tab', () => {
      const transcript = typeInBash(['echo LIST-START\n', 'ak \t\t', '\u0015echo LIST-END\n'])
      const listing = transcript.slice(transcript.lastIndexOf('LIST-START'), transcript.lastIndexOf('LIST-END'))
      for (const word of ['autocomplete', 'codex-agent-runtime', 'doctor', 'exec', 'help', 'version']) {
        expect(listing.match(new RegExp(`(?<![\\w-])${word}(?![\\w-])`, 'g')), word).to.have.length(1)
      }
    })
  })
})

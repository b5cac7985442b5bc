import {expect} from 'chai'
import {execFileSync, spawnSync} from 'node:child_process'
import {chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {parse as parseToml} from 'smol-toml'

import {type LoneBundle, copyBundleAlone} from '../helpers/bundle.js'
import {RUN_JS} from '../helpers/clients.js'

/**
 * Shell completion as a user sets it up: `ak` on PATH (a wrapper around the entry file), a
 * writable cache folder, the line `ak autocomplete script bash` prints sourced in a real bash,
 * then TAB simulated by calling the registered completion function. Run for the installed
 * package (bin/run.js) and for the one-file bundle copied alone into an empty folder.
 */
for (const install of ['package', 'bundle'] as const) {
  describe(`ak autocomplete, from the ${install}`, () => {
    let root: string
    let entry: string
    let bundle: LoneBundle | undefined
    let env: Record<string, string>

    before(function () {
      this.timeout(120_000)
      root = mkdtempSync(path.join(tmpdir(), 'ak-completion-'))
      if (install === 'bundle') bundle = copyBundleAlone()
      entry = bundle?.file ?? RUN_JS
      const bin = path.join(root, 'bin')
      mkdirSync(bin)
      writeFileSync(path.join(bin, 'ak'), `#!/bin/sh\nexec '${process.execPath}' '${entry}' "$@"\n`)
      chmodSync(path.join(bin, 'ak'), 0o755)
      env = {PATH: `${bin}:/usr/bin:/bin`, HOME: root, XDG_CACHE_HOME: path.join(root, 'cache')}
      execFileSync('ak', ['autocomplete', '--refresh-cache'], {env, stdio: 'pipe', cwd: root})
    })

    after(() => {
      rmSync(root, {recursive: true, force: true})
      bundle?.remove()
    })

    /** Sources the setup line in `bash --norc` and returns what TAB offers after each typed line. */
    function complete(lines: string[]): string[] {
      const script = [
        'eval "$(ak autocomplete script bash)"',
        'complete -p ak',
        'fn=$(complete -p ak | sed -E "s/.*-F ([^ ]+) .*/\\1/")',
        'tab() { read -ra COMP_WORDS <<< "$1"; [[ "$1" == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); $fn; printf "%s\\n" "$(printf "%s\\n" "${COMPREPLY[@]}" | sort -u | tr "\\n" " ")"; }',
        ...lines.map((line) => `tab ${JSON.stringify(line)}`),
      ].join('\n')
      return execFileSync('bash', ['--norc', '--noprofile', '-c', script], {env, encoding: 'utf8', cwd: root}).trimEnd().split('\n')
    }

    it('registers a completion function for ak in bash', () => {
      expect(complete([])[0]).to.match(/^complete (-o \S+ )*-F \S+ ak$/)
    })

    it('completes topics, commands and flags in bash', () => {
      const [, top, exec, serveFlags, callFlag, doctorFlags, runtimeFlags] = complete([
        'ak ', 'ak exec ', 'ak exec serve --', 'ak exec call --ar', 'ak doctor --', 'ak codex-agent-runtime serve --',
      ])
      expect(top!.split(' ')).to.include.members(['doctor', 'exec', 'codex-agent-runtime', 'autocomplete', 'help'])
      expect(exec!.split(' ')).to.include.members(['call', 'config', 'serve', 'tools'])
      expect(serveFlags!.split(' ')).to.include.members(['--workspace', '--level', '--quiet'])
      expect(callFlag!.trim()).to.equal('--arg')
      expect(doctorFlags!.split(' ')).to.include.members(['--json', '--quiet', '--yes', '--no-interactive'])
      // A server's stdout is MCP's and it never prompts: the shared flags that would change either are not offered.
      expect(serveFlags!.split(' ')).not.to.include.members(['--json'])
      expect(serveFlags!.split(' ')).not.to.include.members(['--yes'])
      expect(serveFlags!.split(' ')).not.to.include.members(['--no-interactive'])
      for (const flag of ['--json', '--quiet', '--yes', '--no-interactive']) expect(runtimeFlags!.split(' ')).not.to.include(flag)
    })

    it('writes zsh and PowerShell completions with the same commands', () => {
      const cache = path.join(root, 'cache', 'ak', 'autocomplete', 'functions')
      const zsh = readFileSync(path.join(cache, 'zsh', '_ak'), 'utf8')
      const powershell = readFileSync(path.join(cache, 'powershell', 'ak.ps1'), 'utf8')
      for (const word of ['doctor', 'serve', 'tools', 'config']) {
        expect(zsh).to.contain(word)
        expect(powershell).to.contain(word)
      }
      expect(execFileSync('ak', ['autocomplete', 'script', 'zsh'], {env, encoding: 'utf8', cwd: root})).to.contain('zsh_setup')
    })

    it('writes client configs that start this same entry file', () => {
      const block = execFileSync('ak', ['exec', 'config', '--client', 'codex', '--quiet'], {env, encoding: 'utf8', cwd: root})
      const server = (parseToml(block) as {mcp_servers: Record<string, {args: string[]}>}).mcp_servers['ak-exec']!
      expect(server.args[0]).to.equal(entry)
    })

    it('answers a mistyped command with a suggestion and exit code 2', () => {
      const run = spawnSync('ak', ['exec', 'srve'], {env, encoding: 'utf8', cwd: root})
      expect(run.status).to.equal(2)
      expect(run.stderr).to.contain('Did you mean "ak exec serve"?')
    })
  })
}

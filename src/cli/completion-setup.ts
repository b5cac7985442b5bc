/** The shells `ak autocomplete` writes completion files for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'powershell'] as const

/** One of COMPLETION_SHELLS. */
export type CompletionShell = (typeof COMPLETION_SHELLS)[number]

/** The comment that ends the set-up line `<bin> autocomplete script <shell>` prints (bash and zsh). */
export function setupLineMarker(bin: string): string {
  return `${bin} autocomplete setup`
}

/**
 * How to turn completion on in `shell`, once the completion files are written: the command that
 * appends the set-up line to the shell's start-up file (once, however often it is run), then what
 * completes. The set-up line is appended as `<bin> autocomplete script <shell>` prints it, with its
 * final line break, so a line appended to the file later stays a line of its own (the
 * `printf "$(…)"` form some instructions give drops that line break, and the next line appended
 * then ends up inside the set-up line's comment).
 * @param bin the command's name (`ak`).
 */
export function completionSetupInstructions(bin: string, shell: CompletionShell): string {
  const script = `${bin} autocomplete script ${shell}`
  const once = (file: string) => `grep -qs '# ${setupLineMarker(bin)}' ${file} || ${script} >> ${file}`
  const usage = (tab: string) =>
    [`Then \`${bin} ${tab}\` completes commands and \`${bin} exec serve --${tab}\` their flags.`, `After upgrading ${bin}, run \`${bin} autocomplete --refresh-cache\`.`]
  // bash and zsh differ only in their start-up file, how Tab lists completions, and one note.
  const rcShells = {
    bash: {file: '~/.bashrc', tab: '<TAB><TAB>', note: 'A login shell that reads ~/.bash_profile or ~/.profile instead needs the line there.'},
    zsh: {file: '~/.zshrc', tab: '<TAB>', note: 'If zsh warns about insecure directories, `compaudit` lists them.'},
  }
  switch (shell) {
    case 'bash':
    case 'zsh': {
      const {file, tab, note} = rcShells[shell]
      return [`Completion for ${shell}: add ${bin}'s set-up line to ${file}, then open a new shell:`, '', `  ${once(file)}`, '', note, ...usage(tab)].join('\n')
    }
    case 'powershell':
      return [
        `Completion for PowerShell: add ${bin}'s set-up line to your profile, then open a new window:`,
        '',
        '  New-Item -Type Directory -Path (Split-Path -Parent $PROFILE) -ErrorAction SilentlyContinue',
        // The set-up line dot-sources <cache>\autocomplete\functions\powershell\<bin>.ps1.
        `  if (-not (Select-String -Path $PROFILE -SimpleMatch -Quiet -Pattern '${bin}.ps1' -ErrorAction SilentlyContinue)) { ` +
          `Add-Content -Path $PROFILE -Value (Invoke-Expression -Command "${script}") }`,
        '',
        'For matches listed below the command line: Set-PSReadlineKeyHandler -Key Tab -Function MenuComplete',
        ...usage('<TAB>'),
      ].join('\n')
  }
}

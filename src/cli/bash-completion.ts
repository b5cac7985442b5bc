import type {Interfaces} from '@oclif/core'

/** A flag as completion sees it. */
export interface CompletionFlag {
  /** Long name without dashes (`level`). */
  name: string
  /** One-letter alias (`l`), if any. */
  char?: string
  /** True when the flag takes a value (`--level files`), false for a switch (`--json`). */
  takesValue: boolean
  /** The values it accepts, when they are a fixed list. */
  options?: readonly string[]
  /** True when `--no-<name>` is accepted too. */
  allowNo?: boolean
}

/** A command as completion sees it. */
export interface CompletionCommand {
  /** oclif id, colon-separated (`exec:serve`). */
  id: string
  flags: CompletionFlag[]
  /** Fixed values of each positional argument, in order; undefined where any value goes. */
  argOptions: Array<readonly string[] | undefined>
}

/** Flags every command takes from oclif itself: help (with ak's `-h`). */
const HELP_FLAGS = ['--help', '-h']
/** Flags `ak` takes before any command. */
const ROOT_FLAGS = ['--help', '-h', '--version', '-v']

/**
 * The visible commands of `config` (and their aliases) with their flags and argument values, for
 * `bashCompletionScript`. Hidden commands and hidden flags are left out.
 */
export function completionCommandsOf(config: Interfaces.Config): CompletionCommand[] {
  const commands: CompletionCommand[] = []
  for (const command of config.commands) {
    if (command.hidden) continue
    const flags = Object.entries(command.flags ?? {})
      .filter(([, flag]) => !flag.hidden)
      .map(([name, flag]): CompletionFlag => {
        const takesValue = flag.type === 'option'
        return {
          name,
          takesValue,
          ...(flag.char ? {char: flag.char} : {}),
          ...(takesValue && flag.options ? {options: flag.options} : {}),
          ...(flag.type === 'boolean' && flag.allowNo ? {allowNo: true} : {}),
        }
      })
    const argOptions = Object.values(command.args ?? {}).map((arg) => arg.options)
    for (const id of [command.id, ...command.aliases]) commands.push({id, flags, argOptions})
  }
  return commands.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/**
 * A bash completion script for `bin` that completes, from the words before the cursor:
 * - command words, each topic once (`ak ex` → `exec`, `ak exec s` → `serve`), also after `help`;
 * - a command's flags (`--l` → `--level`), wherever they stand, skipping the values of the flags
 *   before them (`--workspace /tmp --l`), in `--flag value` and `--flag=value` forms;
 * - the fixed values of a flag or an argument (`--level ` → `read files terminal`);
 * - file names anywhere else (through `complete -o default`), e.g. after `--workspace`.
 * It runs on bash 3.2 and later, needs no other program (no sed or grep), and defines only
 * functions and one variable prefixed `_<bin>_`. Words that readline splits off at `=` and `:`
 * (COMP_WORDBREAKS) are joined back to the word they belong to.
 */
export function bashCompletionScript(bin: string, commands: readonly CompletionCommand[]): string {
  const fn = `_${bin.replaceAll(/[^A-Za-z0-9_]/g, '_')}`
  const flagCases = commands.map((command) => `    ${quote(command.id)}) echo ${quote(flagWords(command).join(' '))} ;;`)
  const valueCases = commands.flatMap((command) =>
    command.flags
      .filter((flag) => flag.options && flag.options.length > 0)
      .map((flag) => {
        const patterns = [`--${flag.name}`, ...(flag.char ? [`-${flag.char}`] : [])].map((name) => quote(`${command.id} ${name}`))
        return `    ${patterns.join('|')}) echo ${quote(flag.options!.join(' '))} ;;`
      }),
  )
  const argCases = commands.flatMap((command) =>
    command.argOptions.flatMap((options, index) =>
      options && options.length > 0 ? [`    ${quote(`${command.id} ${index}`)}) echo ${quote(options.join(' '))} ;;`] : [],
    ),
  )
  return `# bash completion for ${bin}, generated from its commands by "${bin} autocomplete".

${fn}_commands=${quote(commands.map((command) => command.id).join('\n'))}

# ${fn}_flags ID: the flags of command ID (of ${bin} itself when ID is empty, of a topic otherwise);
# a flag that takes a value ends in "=".
${fn}_flags() {
  case "$1" in
${flagCases.join('\n')}
    '') echo ${quote(ROOT_FLAGS.join(' '))} ;;
    *) echo ${quote(HELP_FLAGS.join(' '))} ;;
  esac
}

# ${fn}_flag_values ID FLAG: the values FLAG of command ID accepts, when they are a fixed list.
${fn}_flag_values() {
  case "$1 $2" in
${valueCases.join('\n')}
  esac
}

# ${fn}_arg_values ID N: the values argument N (from 0) of command ID accepts, when fixed.
${fn}_arg_values() {
  case "$1 $2" in
${argCases.join('\n')}
  esac
}

# ${fn}_is_command ID / ${fn}_is_path WORDS: is it a command / a command or topic?
${fn}_is_command() {
  case $'\\n'"$${fn}_commands"$'\\n' in *$'\\n'"$1"$'\\n'*) return 0 ;; esac
  return 1
}
${fn}_is_path() {
  case $'\\n'"$${fn}_commands"$'\\n' in *$'\\n'"$1"$'\\n'* | *$'\\n'"$1":*) return 0 ;; esac
  return 1
}

# ${fn}_next_words PATH: the words that may follow command path PATH ("" at the top), each once.
${fn}_next_words() {
  local prefix="\${1:+$1:}" line rest words=" "
  while IFS= read -r line; do
    case "$line" in
      "$prefix"?*)
        rest="\${line#"$prefix"}"
        rest="\${rest%%:*}"
        case "$words" in *" $rest "*) ;; *) words="$words$rest " ;; esac
        ;;
    esac
  done <<< "$${fn}_commands"
  echo "$words"
}

${fn}_autocomplete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" word id="" pending="" glued="" args=0 i=1 values
  COMPREPLY=()
  # "--level=" is split into "--level" "=" (and "host:port" into "host" ":" "port"): the
  # cursor right after such a break completes what follows it.
  if [ "$cur" = "=" ] || [ "$cur" = ":" ]; then cur=""; fi
  while [ "$i" -lt "$COMP_CWORD" ]; do
    word="\${COMP_WORDS[i]}"
    i=$((i + 1))
    if [ "$word" = "=" ] || [ "$word" = ":" ]; then
      # A break inside one shell word: the next piece belongs to the same word, unless it is
      # the value of the flag before the "=".
      [ -n "$pending" ] || glued=1
      continue
    fi
    if [ -n "$glued" ]; then glued=""; continue; fi
    if [ -n "$pending" ]; then pending=""; continue; fi
    case "$word" in
      -*)
        case " $(${fn}_flags "$id") " in
          *" \${word%%=*}= "*) case "$word" in *=*) ;; *) pending="$word" ;; esac ;;
        esac
        ;;
      *)
        if [ "$args" -eq 0 ] && [ "$id" = help ] && ${fn}_is_path "$word"; then
          id="$word"
        elif [ "$args" -eq 0 ] && ${fn}_is_path "\${id:+$id:}$word" && ! ${fn}_is_command "$id"; then
          id="\${id:+$id:}$word"
        else
          args=$((args + 1))
        fi
        ;;
    esac
  done
  if [ -n "$pending" ]; then
    values="$(${fn}_flag_values "$id" "$pending")"
    if [ -n "$values" ]; then COMPREPLY=($(compgen -W "$values" -- "$cur")); fi
    return 0
  fi
  case "$cur" in
    --*=*)
      values="$(${fn}_flag_values "$id" "\${cur%%=*}")"
      if [ -n "$values" ]; then COMPREPLY=($(compgen -P "\${cur%%=*}=" -W "$values" -- "\${cur#*=}")); fi
      return 0
      ;;
    -*)
      values="$(${fn}_flags "$id")"
      COMPREPLY=($(compgen -W "\${values//=/}" -- "$cur"))
      return 0
      ;;
  esac
  if ${fn}_is_command "$id" && [ "$id" != help ]; then
    values="$(${fn}_arg_values "$id" "$args")"
  elif [ "$args" -eq 0 ]; then
    values="$(${fn}_next_words "$( [ "$id" = help ] || echo "$id")")"
  else
    values=""
  fi
  if [ -n "$values" ]; then COMPREPLY=($(compgen -W "$values" -- "$cur")); fi
  return 0
}

complete -o default -F ${fn}_autocomplete ${bin}
`
}

/** The words a command's flags are typed as, a value-taking one ending in "=". */
function flagWords(command: CompletionCommand): string[] {
  const words = command.flags.flatMap((flag) => {
    const suffix = flag.takesValue ? '=' : ''
    return [
      `--${flag.name}${suffix}`,
      ...(flag.char ? [`-${flag.char}${suffix}`] : []),
      ...(flag.allowNo ? [`--no-${flag.name}`] : []),
    ]
  })
  return [...words, ...HELP_FLAGS]
}

/** `text` as a single-quoted shell word. */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
}

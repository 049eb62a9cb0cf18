import type { Command } from 'commander';
import { completionValues } from '../shared/completion-values.js';

/** The long and short flags of a command's own options, and whether any of them take a value. */
function flagsOf(command: Command): string[] {
  return command.options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => Boolean(flag)));
}

function children(command: Command): string[] {
  return command.commands.map((child) => child.name());
}

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** `"node create --type"|"node create -t") echo "vpcs qemu …" ;;` for each option that has values to offer. */
function valueLines(commands: Command[]): string {
  return commands.flatMap((c) => c.options.flatMap((option) => {
    const values = completionValues(option);
    if (!values.length) return [];
    const keys = [option.long, option.short].filter(Boolean).map((flag) => `"${[pathOf(c), flag].filter(Boolean).join(' ')}"`);
    return [`    ${keys.join('|')}) echo "${values.join(' ')}" ;;`];
  })).join('\n');
}

function all(command: Command): Command[] {
  return [command, ...command.commands.flatMap(all)];
}

/** A bash completion script for the command tree under `root` (subcommands and options of each). */
export function bashCompletionScript(root: Command): string {
  const commands = all(root);
  const name = root.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const caseLines = (pick: (c: Command) => string[]) =>
    commands.map((c) => `    "${pathOf(c)}") echo "${pick(c).join(' ')}" ;;`).join('\n');
  return `# bash completion for ${name}; load it with:  source <(${name} completion bash)
${fn}_children() {
  case "$1" in
${caseLines(children)}
  esac
}
${fn}_options() {
  case "$1" in
${caseLines((c) => [...flagsOf(c), '--help'])}
  esac
}
${fn}_values() {
  case "$1" in
${valueLines(commands)}
  esac
}
# Inside lab verbs: lab files for the first argument, then the nodes and links that file names
# (read by '${name} completion --lab-nodes/--lab-links FILE'; a bad file gives nothing).
${fn}_lab() {
  local cur="$1" prev="\${COMP_WORDS[COMP_CWORD-1]}" lab="" before="" word i
  for ((i = $2 + 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    before="\${COMP_WORDS[i-1]}"
    [[ "$word" == -* || "$word" == ":" || "$before" == ":" ]] && continue
    [[ "$before" =~ ^(--ping|-t|--timeout|-f|--format|-o|--output|--profile|--url)$ ]] && continue
    lab="$word"; break
  done
  local nodes
  if [[ "$prev" == "--ping" ]]; then
    nodes=$(${name} completion --lab-nodes "$lab" 2>/dev/null)
    if [[ "$cur" == *:* ]]; then
      COMPREPLY=( $(compgen -P "\${cur%%:*}:" -W "$nodes" -- "\${cur#*:}") )
    else
      COMPREPLY=( $(compgen -S ":" -W "$nodes" -- "$cur") )
      compopt -o nospace 2>/dev/null
    fi
  elif [[ "$prev" == ":" && "\${COMP_WORDS[COMP_CWORD-3]}" == "--ping" ]]; then
    COMPREPLY=( $(compgen -W "$(${name} completion --lab-nodes "$lab" 2>/dev/null)" -- "$cur") )
  elif [[ -z "$lab" || "$lab" == "$cur" ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
  elif [[ "$path" == "lab inspect" ]]; then
    COMPREPLY=( $(compgen -W "$(${name} completion --lab-nodes "$lab" 2>/dev/null) $(${name} completion --lab-links "$lab" 2>/dev/null)" -- "$cur") )
  fi
}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i verb=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    if [[ " $(${fn}_children "$path") " == *" $word "* ]]; then path="\${path:+$path }$word"; verb=$i; fi
  done
  if [[ "$path" == "lab "* && "$cur" != -* ]]; then
    ${fn}_lab "$cur" "$verb"
    return
  fi
  local values="" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  [[ "$prev" == -* ]] && values=$(${fn}_values "\${path:+$path }$prev")
  if [[ -n "$values" ]]; then
    COMPREPLY=( $(compgen -W "$values" -- "$cur") )
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$(${fn}_options "$path") $(${fn}_options "")" -- "$cur") )
  else
    COMPREPLY=( $(compgen -W "$(${fn}_children "$path")" -- "$cur") )
  fi
}
complete -F ${fn} ${name}
`;
}

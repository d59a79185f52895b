/** Shell completion scripts for the command tree: words only (commands, subcommands, long options). */
export interface CompletionNode {
  name: string;
  options: string[];
  commands: CompletionNode[];
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const words = (xs: string[]) => xs.join(' ');

export function completionScript(shell: Shell, root: CompletionNode): string {
  const top = root.commands;
  if (shell === 'fish') {
    const lines = ['# holon completion for fish: holon completion fish > ~/.config/fish/completions/holon.fish', 'complete -c holon -f'];
    lines.push(`complete -c holon -n '__fish_use_subcommand' -a '${words(top.map((c) => c.name))}'`);
    for (const c of top) {
      if (c.commands.length) lines.push(`complete -c holon -n '__fish_seen_subcommand_from ${c.name}' -a '${words(c.commands.map((s) => s.name))}'`);
      for (const o of [...c.options, ...c.commands.flatMap((s) => s.options)]) lines.push(`complete -c holon -n '__fish_seen_subcommand_from ${c.name}' -l ${o.replace(/^--/, '')}`);
    }
    return lines.join('\n') + '\n';
  }
  const cases = top.map((c) => {
    const subs = c.commands.length
      ? `if [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=($(compgen -W "${words(c.commands.map((s) => s.name))}" -- "$cur")); return; fi; case "\${COMP_WORDS[2]}" in ${c.commands.map((s) => `${s.name}) opts="${words(s.options)}";;`).join(' ')} esac`
      : `opts="${words(c.options)}"`;
    return `    ${c.name}) ${subs} ;;`;
  });
  const fn = [
    '_holon() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" opts=""',
    `  if [ "$COMP_CWORD" -eq 1 ]; then COMPREPLY=($(compgen -W "${words(top.map((c) => c.name))} ${words(root.options)}" -- "$cur")); return; fi`,
    '  case "${COMP_WORDS[1]}" in',
    ...cases,
    '  esac',
    '  COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
    '}',
  ];
  if (shell === 'bash') return ['# holon completion for bash: source <(holon completion bash)', ...fn, 'complete -F _holon holon', ''].join('\n');
  // zsh runs the same function through its bash completion layer.
  return ['#compdef holon', '# holon completion for zsh: source <(holon completion zsh)', 'autoload -U +X bashcompinit && bashcompinit', ...fn, 'complete -F _holon holon', ''].join('\n');
}

"""`etg completion bash|zsh`: shell completion generated from the parser itself.

The script is written from the same argparse tree `etg --help` prints, so a new command
or option completes as soon as it exists: command words, the options of the command
typed so far, and the choices of an option that has them (``--variant``, ``--what``...).
Hidden old spellings are left out. zsh runs the bash function through ``bashcompinit``.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "completion", parents=[common], help="print shell completion for bash or zsh",
        description="Print a completion script generated from etg's own parser. bash: "
        "`source <(etg completion bash)` (or save it under "
        "~/.local/share/bash-completion/completions/etg); zsh: "
        "`source <(etg completion zsh)` in ~/.zshrc.")
    p.add_argument("shell", choices=["bash", "zsh"], help="the shell")
    p.set_defaults(func=_run)


def _tables(parser: argparse.ArgumentParser) -> tuple[dict[str, list[str]],
                                                      dict[str, list[str]],
                                                      dict[str, list[str]]]:
    """(subcommands, options, choices) keyed by the command path ("etg", "etg rng
    draws", ...; choices by "path|OPTION")."""
    subs: dict[str, list[str]] = {}
    opts: dict[str, list[str]] = {}
    choices: dict[str, list[str]] = {}

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        opts[path] = []
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                subs[path] = list(a.choices)
                for name, sp in a.choices.items():
                    walk(sp, f"{path} {name}")
                continue
            if a.help == argparse.SUPPRESS:
                continue
            longs = [o for o in a.option_strings if o.startswith("--")]
            opts[path] += longs
            if a.choices is not None:
                for o in longs:
                    choices[f"{path}|{o}"] = [str(c) for c in a.choices]
                if not a.option_strings:  # a positional with choices (etg completion SHELL)
                    subs.setdefault(path, []).extend(str(c) for c in a.choices)

    walk(parser, "etg")
    return subs, opts, choices


def _assoc(name: str, table: dict[str, list[str]]) -> str:
    items = " ".join(f"[{shlex.quote(k)}]={shlex.quote(' '.join(v))}"
                     for k, v in sorted(table.items()))
    return f"declare -gA {name}=({items})"


BASH_FUNCTION = r'''
_etg() {
    local cur prev path w i
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    path="etg"
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        if [[ "$w" != -* && " ${_etg_subs[$path]} " == *" $w "* ]]; then
            path="$path $w"
        fi
    done
    if [[ -n "${_etg_choices[$path|$prev]+set}" ]]; then
        COMPREPLY=($(compgen -W "${_etg_choices[$path|$prev]}" -- "$cur"))
    elif [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "${_etg_opts[$path]}" -- "$cur"))
    else
        COMPREPLY=($(compgen -W "${_etg_subs[$path]}" -- "$cur"))
    fi
}
complete -o default -F _etg etg
'''


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    subs, opts, choices = _tables(parser)
    body = "\n".join([_assoc("_etg_subs", subs), _assoc("_etg_opts", opts),
                      _assoc("_etg_choices", choices)]) + BASH_FUNCTION
    head = "# etg completion, generated from its parser: etg completion " + shell + "\n"
    if shell == "zsh":
        head += "autoload -U +X bashcompinit && bashcompinit\n"
    return head + body


def _run(args: argparse.Namespace) -> int:
    from firmware.cli import build_parser

    print(script(args.shell, build_parser()), end="")
    return 0

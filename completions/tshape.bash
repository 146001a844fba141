# bash completion for tshape(1)                                -*- shell-script -*-
#
# Subcommands and their options are read from the program itself at
# completion time (`tshape --help`, `tshape CMD --help`), so this file stays
# in sync with the binary being completed (the first word of the command
# line: tshape, ./build/tshape, ...). Values are offered for --format and the
# other options with a known set of values (an option whose placeholder in the
# help reads A|B offers A and B); commands whose usage names FILE complete
# file names.
#
# Installed as share/bash-completion/completions/tshape; to try it from a
# checkout: . completions/tshape.bash

# The subcommands in `tshape --help`: in its command groups, each command's
# line starts with two spaces and the command's name (option lines start
# with a dash, continuation lines with more spaces).
_tshape_commands()
{
    "$1" --help 2>/dev/null |
        sed -n 's/^  \([a-z][a-z0-9-]*\)[[:space:]].*/\1/p'
}

# The options of a subcommand: every -x / --long-name on its usage line and
# on the option lines (those starting with blanks and a dash) of its help.
_tshape_options()
{
    "$1" "$2" --help 2>/dev/null |
        grep -E '^(Usage:|[[:space:]]+-)' |
        grep -oE -- '(^|[][[:space:],|])--?[A-Za-z][A-Za-z0-9-]*' |
        sed 's/^[][[:space:],|]//' | sort -u
}

# The placeholder after option $3 in the help of subcommand $2 ("FMT",
# "C|F"), empty when the option takes no value.
_tshape_placeholder()
{
    "$1" "$2" --help 2>/dev/null |
        grep -oE -- "(^|[][[:space:],])$3[ =][A-Z][A-Za-z0-9|,.]*" | head -n 1 |
        sed -e 's/^[][[:space:],]//' -e "s/^$3[ =]//"
}

_tshape()
{
    local cur prev words cword split=false
    if declare -F _init_completion >/dev/null 2>&1; then
        _init_completion -s || return
    else
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        # --opt=value arrives as "--opt" "=" "value" (= is a word break)
        if [[ $cur == = ]]; then
            cur=
            split=true
        elif [[ $prev == = && $cword -ge 2 ]]; then
            prev=${COMP_WORDS[COMP_CWORD - 2]}
            split=true
        fi
    fi
    local prog=${words[0]} cmd= i

    # The subcommand is the first word after the global options.
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -*) ;;
            =) ;;
            *) cmd=${words[i]}; break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '-j --json -h --help -V --version' -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_tshape_commands "$prog")" -- "$cur"))
        fi
        return
    fi

    # The value of an option.
    local values=
    case $prev in
        -f | --format)
            [[ $cmd == info ]] &&
                values='npy npz mxnet safetensors gguf tshape32 tshape64 hdf5 onnx caffe caffe2' ;;
        --order) values='C F' ;;
        --mode) values='raise wrap clip' ;;
        --dtype)
            values='float32 float64 float16 bfloat16 int8 int16 int32 int64 uint8
                    uint16 uint32 uint64 bool complex64 complex128' ;;
        --op) values='sum mean max min prod any all' ;;
    esac
    if [[ -z $values && $prev == -* ]]; then
        local ph
        ph=$(_tshape_placeholder "$prog" "$cmd" "$prev")
        if [[ $ph == *'|'* ]]; then
            values=${ph//|/ }
        elif [[ -n $ph ]]; then
            # A free-form value (a number, a glob, strides): nothing to offer,
            # except file names where the placeholder is FILE.
            [[ $ph == FILE* ]] && COMPREPLY=($(compgen -f -- "$cur"))
            return
        fi
    fi
    if [[ -n $values ]]; then
        COMPREPLY=($(compgen -W "$values" -- "$cur"))
        return
    fi

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_tshape_options "$prog" "$cmd") -h --help" -- "$cur"))
        return
    fi

    # Operands: file names for commands that read files (FILE in the usage).
    if "$prog" "$cmd" --help 2>/dev/null | head -n 1 | grep -q 'FILE'; then
        if declare -F _filedir >/dev/null 2>&1; then
            _filedir
        else
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
    fi
} &&
    complete -F _tshape tshape

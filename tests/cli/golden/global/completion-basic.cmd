# bash completion (completions/tshape.bash, generated from the command and
# option tables by scripts/gen-completion.sh): prints the candidates for each
# partial command line.
for line in 'fla' 'info --f' 'info -f s' 'info --format ' 'ravel --order ' \
    'ravel --mode c' 'strides --dtype bf' 'info tests/fixtures/npy/float3' \
    '--json info --st' 'jagged --' 'size ' 'info --filter ' '-' 'size -'; do
    bash -c '. completions/tshape.bash
             read -r -a COMP_WORDS <<< "tshape $1"
             case $1 in *" ") COMP_WORDS+=("");; esac
             COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
             _tshape
             printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' - "$line" | sed "s|^|tshape $line<TAB> -> |;s| \$||"
    echo
done

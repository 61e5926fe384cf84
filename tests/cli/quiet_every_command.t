# Every command takes --quiet (the flag parser reads flags in order, so
# an unknown --quiet before --help would fail): the list is the commands
# of 'qctl --help', so that a new command is covered without a new line.
cmd: --help
stdout: sim queue
sh: n=0; for c in $($QCTL --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \(sim [a-z]*\|mdp [a-z]*\|[a-z]*\) .*/\1/p' | tr ' ' '+'); do c=$(echo $c | tr '+' ' '); case $c in help|completion) continue;; esac; n=$((n+1)); $QCTL $c --quiet --help >/dev/null 2>$TMP/err || { echo "qctl $c refuses --quiet: $(cat $TMP/err)"; exit 1; }; done; [ $n -ge 16 ] || { echo "only $n commands found in qctl --help"; exit 1; }

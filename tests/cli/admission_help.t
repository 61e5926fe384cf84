# qctl sim admission --help lists its flags; qctl sim --help lists the model
cmd: sim admission --help
stdout: --scenario FILE
stdout: --policy P
stdout: --epsilon E
no-stderr:
sh: $QCTL sim --help | grep -q admission && $QCTL --help | grep -q 'sim admission'

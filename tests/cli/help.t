# qctl --help lists the commands; every subcommand has --help
cmd: --help
stdout: sim queue
sh: $QCTL sim queue --help | grep -q -- '--arrival' && $QCTL sim --help | grep -q queue

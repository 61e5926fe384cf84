# qctl sim pool --help lists its flags; qctl --help and qctl sim --help list the model
cmd: sim pool --help
stdout: --threshold
stdout: --setup-time
stdout: --idle-timer
stdout: central
no-stderr:
sh: $QCTL --help | grep -q 'sim pool' && $QCTL sim --help | grep -q pool

# qctl mdp removable --help lists its flags; qctl --help and qctl mdp --help name it
cmd: mdp removable --help
stdout: --lambda
stdout: --setup-rate
stdout: --method M
no-stderr:
sh: $QCTL --help | grep -q 'mdp removable' && $QCTL mdp --help | grep -q removable

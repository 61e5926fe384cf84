# Required flags, unknown models and flags.
cmd: mdp removable --lambda 0.5 --rates 0.5,1 --power 1,2
exit: 2
stderr: --setup-rate: required
sh: $QCTL mdp frob 2>&1 | grep -q "unknown model 'frob'"; $QCTL mdp removable --frob 2>&1 | grep -q "unknown option '--frob'"; $QCTL mdp removable --lambda 0.5 --rates 0.5,1 --setup-rate 1 2>&1 | grep -q -- "--power: required"; $QCTL mdp removable --lambda 0.5 --rates 0.5,1 --power 1,2 --setup-rate 1 --method foo; [ $? -eq 2 ]

# Negative costs are refused, naming the flag.
cmd: mdp removable --lambda 0.5 --rates 0.5,1,1.5 --power 1,2,4 --idle-power -1 --setup-rate 1
exit: 2
stderr: --idle-power: -1 is negative
sh: $QCTL mdp removable --lambda 0.5 --rates 0.5,1,1.5 --power 1,-2,4 --setup-rate 1 2>&1 | grep -q -- "--power: element 2 (-2) is negative"
sh: $QCTL mdp removable --lambda 0.5 --rates 0.5,1,1.5 --power 1,2,4 --switch-cost -3 --setup-rate 1 2>&1 | grep -q -- "--switch-cost: -3 is negative"
sh: $QCTL mdp removable --lambda 0.5 --rates 0.5,1,1.5 --power 1,2,4 --holding 0 --setup-rate 1; [ $? -eq 2 ]

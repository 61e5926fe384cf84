# A malformed list names the element.
cmd: mdp removable --lambda 0.5 --rates 0.5,1x,1.5 --power 1,2,4 --setup-rate 1
exit: 2
stderr: --rates: element 2 ('1x') is not a finite number
sh: $QCTL mdp removable --lambda 0.5 --rates 0.5,1,1.5 --power 1,,4 --setup-rate 1 2>&1 | grep -q -- "--power: element 2 is empty"
sh: $QCTL mdp removable --lambda 0.5 --rates 0.5,1,1.5 --power 1,2 --setup-rate 1 2>&1 | grep -q -- "--power: 2 values for 3 rates"

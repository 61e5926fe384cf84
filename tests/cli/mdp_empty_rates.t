cmd: mdp removable --lambda 0.5 --rates '' --power 1 --setup-rate 1
exit: 2
stderr: --rates: empty list

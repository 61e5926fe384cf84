# lambda at or above the fastest rate: no policy keeps the queue stable.
cmd: mdp removable --lambda 1.5 --rates 0.5,1,1.5 --power 1,2,4 --setup-rate 1
exit: 2
stderr: --lambda: 1.5 >= the fastest rate 1.5
stderr: unstable under every policy

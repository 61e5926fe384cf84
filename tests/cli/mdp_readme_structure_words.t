# The structure line of mdp removable says in words what range of jobs the
# policy's properties were read on (no "boundary layer" jargon).
cmd: mdp removable --lambda 0.3 --rates 0.6,1 --power 1,3 --idle-power 0.8 --setup-rate 1 --setup-power 1
stdout: structure of the optimal policy, read for 0 to 16 jobs
stdout: when empty and on        switches off

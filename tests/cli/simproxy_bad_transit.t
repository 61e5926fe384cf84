# A transit that is not a distribution is refused, the flag named.
cmd: sim proxy --arrival exp:10 --transit bogus --time 1 --reps 2
exit: 2
stderr: --transit:

# --plot draws the policy (SVG and PNG) when gnuplot is installed.
cmd: mdp removable --lambda 0.4 --rates 0.5,1,1.5 --power 1,2,4 --idle-power 1 --setup-power 2 --setup-rate 1 --switch-cost 3 --holding 0.1 --plot $TMP/p --quiet
file: $TMP/p/policy.dat
sh: command -v gnuplot >/dev/null || exit 77; [ -s $TMP/p/policy.svg ] && [ -s $TMP/p/policy.png ] && grep -q '<svg' $TMP/p/policy.svg

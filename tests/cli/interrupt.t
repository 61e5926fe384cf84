# SIGINT and SIGTERM during long sim, gen and sweep runs: exit 130 / 143,
# one line saying so (with the replications finished), no output file
# left, whole or temporary (tests/cli/interrupt.sh; bounded: 60 s a run).
cmd: --version
sh: sh "$DATA/../cli/interrupt.sh"

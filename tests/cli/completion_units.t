# Completion is generated from the flag rows: a number flag shows its unit
# (seconds for a time, threads for --jobs) instead of completing file
# names, in bash (two entries, so nothing is inserted) and in zsh (the
# message of an empty action); a choice still offers its words.
cmd: completion bash
stdout: --time:seconds (simulated);
stdout: --jobs:threads;
sh: command -v bash >/dev/null || exit 77; $QCTL completion bash > $TMP/c.sh && bash -c 'source $TMP/c.sh; COMP_WORDS=(qctl sim queue --time ""); COMP_CWORD=4; _qctl; [ "${COMPREPLY[0]}" = "<seconds (simulated)>" ] && [ ${#COMPREPLY[@]} -eq 2 ]'
sh: command -v bash >/dev/null || exit 77; $QCTL completion bash > $TMP/c.sh && bash -c 'source $TMP/c.sh; COMP_WORDS=(qctl design --horizon ""); COMP_CWORD=3; _qctl; [ "${COMPREPLY[0]}" = "<samples>" ]'
sh: $QCTL completion zsh | grep -qF "'--time=:seconds (simulated): '"
sh: $QCTL completion zsh | grep -qF "'--law=:value:(integral i pi both)'"

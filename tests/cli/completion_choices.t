# Completion offers a choice flag's words (from the flag table's choices),
# not file names: bash after 'qctl sim queue --discipline', zsh in the
# flag's spec; a switch's words stay flags.
cmd: completion bash
stdout: choices="--discipline:fcfs ps;"
stdout: --controller:integral pi open;
sh: command -v bash >/dev/null || exit 77; $QCTL completion bash > $TMP/c.sh && bash -c 'source $TMP/c.sh; COMP_WORDS=(qctl sim queue --discipline ""); COMP_CWORD=4; _qctl; [ "${COMPREPLY[*]}" = "fcfs ps" ]'
sh: $QCTL completion zsh | grep -qF "'--discipline=:value:(fcfs ps)'"

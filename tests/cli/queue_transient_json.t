# The same in JSON: run.transient holds the reason (null when steady).
cmd: sim queue --arrival exp:2 --service exp:1 --capacity 1000000000 --customers 50000 --quiet --json
exit: 1
json: run.transient exists
sh: grep -q 'never filled the buffer' "$TMP/stdout"

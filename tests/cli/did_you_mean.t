# A mistyped flag, command or model is answered with the one it most likely
# meant; a prefix naming several flags lists them; a missing value is named.
cmd: sim queue --arrival exp:1 --service exp:2 --servrs 2
exit: 2
stderr: unknown option '--servrs'; did you mean '--servers'?
sh: $QCTL simm 2>&1 | grep -q "unknown command 'simm'; did you mean 'sim'?"
sh: $QCTL sim quue 2>&1 | grep -q "unknown model 'quue'; did you mean 'queue'?"
sh: $QCTL proxy --li 3 2>&1 | grep -q "option '--li' is ambiguous: --listen, --limiter, --limit"
sh: $QCTL sim queue --arrival exp:1 --service exp:2 --seed 2>&1 | grep -q -- "option '--seed' needs a value"
sh: $QCTL sim queue --help=3 2>&1 | grep -q -- "option '--help' takes no value"
sh: $QCTL sim queue --xyzzyplugh 2>&1 | grep -q "unknown option '--xyzzyplugh' (see"
sh: $QCTL sim queue --xyzzyplugh; [ $? -eq 2 ]

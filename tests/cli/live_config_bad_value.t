# A --config value the flag's own parser refuses: the same message as on
# the command line, naming the flag.
cmd: proxy --config "$DATA/proxy_config/good.json" --check --epsilon 1.5
exit: 2
stderr: epsilon

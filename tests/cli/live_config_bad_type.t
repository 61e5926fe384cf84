# A --config value of the wrong JSON type is refused, naming the key.
cmd: proxy --config "$DATA/proxy_config/bad_type.json" --check
exit: 2
stderr: "queue": must be a string, a number or true

# A --config key that is no flag of qctl proxy is named.
cmd: proxy --config "$DATA/proxy_config/unknown_key.json" --check
exit: 2
stderr: unknown key "limits"

# A truncated --config file: exit 2 with jansson's line:column.
cmd: proxy --config "$DATA/proxy_config/truncated.json" --check
exit: 2
stderr: truncated.json:5:0:

# --check validates the classes: a prefix naming no class is refused.
cmd: proxy --config "$DATA/proxy_config/incoherent.json" --check
exit: 2
stderr: --class-prefix: 'bronze' is not a --class

# The live page (GET / on the admin port) in headless Chromium at 1280 px,
# the proxy under load: self-contained, every chart drawn, no script error,
# no horizontal overflow (< 20 s; skipped without chromium).
cmd: --version
sh: sh "$DATA/../live/page.sh"

#!/usr/bin/env bash
# Installs what tests/test_browser.py needs: Debian's chromium + chromedriver (no browser
# download at test time) and the selenium bindings (part of the `dev` extra).
# Safe to run again; without root or apt it says why and leaves the browser test to skip.
set -uo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  echo "install_browser: chromium and chromedriver already installed"
else
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 \
      || echo "install_browser: apt-get install chromium chromium-driver failed; browser test will skip"
  else
    echo "install_browser: not root or no apt-get; install chromium and chromium-driver by hand"
  fi
fi
python -c "import selenium" 2>/dev/null || pip install -q "selenium>=4.20" \
  || echo "install_browser: pip install selenium failed; browser test will skip"
exit 0

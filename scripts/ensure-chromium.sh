#!/usr/bin/env sh
# Makes sure Debian's headless-capable Chromium is at /usr/bin/chromium (the report's HTML test opens it); installs it
# with apt-get when missing (scripts/apt-install.sh). Runs in the shell (CI, dev machines).
set -eu
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
. "$(dirname "$0")/apt-install.sh"
apt_prepare ensure-chromium "/usr/bin/chromium is missing" "install Chromium by hand" chromium
apt_install chromium fonts-dejavu-core
if [ ! -x /usr/bin/chromium ]; then
  echo "ensure-chromium: apt-get finished but /usr/bin/chromium is still missing" >&2
  exit 1
fi

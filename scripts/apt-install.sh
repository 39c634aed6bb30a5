#!/usr/bin/env sh
# Sourced by the ensure-*.sh scripts that install a Debian package when a tool is missing (ensure-chromium.sh,
# ensure-prometheus.sh): finding apt-get and the right to use it, then the quiet install. Runs in the shell.

# apt_prepare NAME MISSING HAND_HINT PACKAGE: exits 1 with a line saying what to do when apt-get is absent or
# cannot be used; else sets SUDO ("" as root, "sudo" otherwise) and DEBIAN_FRONTEND for apt_install.
# MISSING is the clause naming what is missing ("/usr/bin/chromium is missing").
apt_prepare() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$1: $2 and apt-get is not available; $3" >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "$1: $2; run as root or install the $4 package" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
}

# apt_install PACKAGE...: updates the package lists and installs the packages without their recommends, quietly.
apt_install() {
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
